import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;

/**
 * A stand-in for a Java Minecraft server, for tests and benchmarks on machines that cannot download
 * real server jars. Prints what Vanilla prints when ready, answers `say` and `list`, stops on `stop`,
 * `flood <lines> <perSecond>` prints timestamped lines at a steady rate, and `floodwide` the same with
 * colour codes and CJK text (several bytes per character once encoded).
 */
public class FakeServer {
  public static void main(String[] args) throws Exception {
    // UTF-8 whatever the locale (the game runs with a clean environment).
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8"));
    System.out.println("[Server thread/INFO]: Starting minecraft server version fake");
    System.out.println("[Server thread/INFO]: Done (0.042s)! For help, type \"help\"");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("stop")) {
        System.out.println("[Server thread/INFO]: Stopping server");
        System.out.flush();
        System.exit(0);
      } else if (line.startsWith("say ")) {
        System.out.println("[Server thread/INFO]: [Server] " + line.substring(4));
      } else if (line.equals("list")) {
        System.out.println("[Server thread/INFO]: There are 0 of a max of 10 players online:");
      } else if (line.startsWith("flood ") || line.startsWith("floodwide ")) {
        boolean wide = line.startsWith("floodwide ");
        String colours = "\u001b[31m紅\u001b[32m緑\u001b[34m青\u001b[33m黄\u001b[35m紫\u001b[36m空\u001b[37m白\u001b[0m";
        String[] parts = line.split(" ");
        int total = Integer.parseInt(parts[1]);
        int perSecond = Integer.parseInt(parts[2]);
        long start = System.nanoTime();
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < total; i++) {
          if (wide) batch.append(colours).append(" 世界のブロック ");
          batch.append("flood ").append(i).append(" t=").append(System.currentTimeMillis()).append('\n');
          if (i % 100 == 99 || i == total - 1) {
            System.out.print(batch);
            System.out.flush();
            batch.setLength(0);
            long due = start + (long) ((i + 1) * 1e9 / perSecond);
            long wait = due - System.nanoTime();
            if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
        }
        System.out.println("flood done");
      } else {
        System.out.println("[Server thread/INFO]: Unknown command: " + line);
      }
      System.out.flush();
    }
  }
}
