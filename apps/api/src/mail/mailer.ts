import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { FastifyBaseLogger as Logger } from 'fastify';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The one link the mail is about, logged in embedded mode so a developer can click it. */
  link?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Embedded mode: each mail becomes an `.eml` file under DATA_DIR/mail and its link is logged. */
export function fileMailer(dir: string, from: string, log: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let counter = 0;
  return {
    async send(message) {
      await mkdir(dir, { recursive: true });
      const info = await transport.sendMail({ from, ...message });
      // Names sort in the order mails were written; a reader never sees half a mail (written, then renamed).
      const file = path.join(dir, `${Date.now()}-${process.pid}-${String(++counter).padStart(6, '0')}.eml`);
      await writeFile(`${file}.part`, info.message as Buffer);
      await rename(`${file}.part`, file);
      log.info({ to: message.to, subject: message.subject, file, link: message.link }, 'mail written');
    },
    close: () => transport.close(),
  };
}

export function smtpMailer(url: string, from: string, log: Logger): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
      log.info({ to: message.to, subject: message.subject }, 'mail sent');
    },
    close: () => transport.close(),
  };
}
