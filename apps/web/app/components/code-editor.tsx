import { useEffect, useRef } from 'react';

/** CodeMirror 6 with highlighting by file type; loaded in the browser only. */
export function CodeEditor({
  value,
  fileName,
  readOnly = false,
  onChange,
  onSave,
}: {
  value: string;
  fileName: string;
  readOnly?: boolean;
  onChange: (v: string) => void;
  onSave: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef({ onChange, onSave });
  latest.current = { onChange, onSave };

  useEffect(() => {
    let view: { destroy(): void } | null = null;
    let cancelled = false;
    void (async () => {
      const [{ basicSetup, EditorView }, { keymap }, { StreamLanguage }, json, props, yaml, shell] = await Promise.all([
        import('codemirror'),
        import('@codemirror/view'),
        import('@codemirror/language'),
        import('@codemirror/lang-json'),
        import('@codemirror/legacy-modes/mode/properties'),
        import('@codemirror/legacy-modes/mode/yaml'),
        import('@codemirror/legacy-modes/mode/shell'),
      ]);
      if (cancelled || !host.current) return;
      const lower = fileName.toLowerCase();
      const language = lower.endsWith('.json')
        ? [json.json()]
        : lower.endsWith('.properties') || lower.endsWith('.cfg') || lower.endsWith('.ini')
          ? [StreamLanguage.define(props.properties)]
          : lower.endsWith('.yml') || lower.endsWith('.yaml')
            ? [StreamLanguage.define(yaml.yaml)]
            : lower.endsWith('.sh')
              ? [StreamLanguage.define(shell.shell)]
              : [];
      view = new EditorView({
        doc: value,
        parent: host.current,
        extensions: [
          basicSetup,
          ...language,
          // Read-only for a role that may not change files: selectable and searchable, not editable.
          EditorView.editable.of(!readOnly),
          keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (latest.current.onSave(), true) }]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
          EditorView.theme({ '&': { height: '60vh', fontSize: '13px' }, '.cm-scroller': { fontFamily: 'ui-monospace, monospace' } }),
        ],
      });
    })();
    return () => {
      cancelled = true;
      view?.destroy();
    };
    // The document is set once per opened file; edits flow out through onChange.
  }, [fileName, readOnly]);

  return <div ref={host} className="overflow-hidden rounded-md border border-slate-300" data-testid="code-editor" />;
}
