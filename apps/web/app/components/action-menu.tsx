import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export type MenuAction =
  { key: string; label: ReactNode; onSelect: () => void } | { key: string; label: ReactNode; href: string; download?: boolean };

const itemClass =
  'block w-full px-4 py-2 text-left text-sm font-medium text-slate-700 hover:bg-slate-100 focus:bg-slate-100 focus:outline-none';

const menuItems = (menu: HTMLElement | null) => [...(menu?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];

/**
 * A menu button (WAI-ARIA menu button pattern) for the actions of one row where there is no room to show
 * them all. Enter, Space or a click opens it with the first action focused; ↑/↓, Home and End move;
 * Escape closes it and gives focus back to the button; Tab or a click elsewhere closes it.
 */
export function ActionMenu({ label, actions, className = '' }: { label: string; actions: MenuAction[]; className?: string }) {
  const [open, setOpen] = useState(false);
  // Which action gets focus once the menu is drawn: opening from the keyboard may ask for the last one.
  const [initial, setInitial] = useState<'first' | 'last'>('first');
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const list = menuItems(menu.current);
    (initial === 'last' ? list[list.length - 1] : list[0])?.focus();
    // A press anywhere outside closes the menu without taking focus away from where the press went.
    const outside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open, initial]);

  function show(which: 'first' | 'last') {
    setInitial(which);
    setOpen(true);
  }

  function close() {
    setOpen(false);
    button.current?.focus();
  }

  function onMenuKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const list = menuItems(menu.current);
    const at = list.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => list[(index + list.length) % list.length]?.focus();
    if (event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'ArrowUp') move(at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(list.length - 1);
    else if (event.key === 'Escape') close();
    else return;
    event.preventDefault();
    event.stopPropagation();
  }

  return (
    <div
      ref={root}
      className={`relative ${className}`}
      onBlur={(event) => {
        // Tab out of the menu (or focus moved anywhere else) closes it.
        if (open && !root.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        className="inline-flex size-9 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100"
        onClick={() => (open ? setOpen(false) : show('first'))}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            show(event.key === 'ArrowUp' ? 'last' : 'first');
          }
        }}
      >
        <svg viewBox="0 0 20 20" className="size-5" fill="currentColor" aria-hidden="true">
          <circle cx="4" cy="10" r="1.75" />
          <circle cx="10" cy="10" r="1.75" />
          <circle cx="16" cy="10" r="1.75" />
        </svg>
      </button>
      {open ? (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label={label}
          className="absolute right-0 top-full z-20 mt-1 min-w-44 rounded-lg border border-slate-200 bg-white py-1 shadow-lg"
          onKeyDown={onMenuKeyDown}
        >
          {actions.map((action) => (
            <MenuEntry key={action.key} action={action} onFollow={() => setOpen(false)} onSelect={close} />
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** One action of the menu: a link (followed by the browser) or a button (the menu closes first). */
function MenuEntry({ action, onFollow, onSelect }: { action: MenuAction; onFollow: () => void; onSelect: () => void }) {
  return 'href' in action ? (
    <a
      role="menuitem"
      tabIndex={-1}
      href={action.href}
      download={action.download}
      className={itemClass}
      // The link is followed by the browser after this; an <a> may navigate once detached.
      onClick={onFollow}
    >
      {action.label}
    </a>
  ) : (
    <button
      type="button"
      role="menuitem"
      tabIndex={-1}
      className={itemClass}
      onClick={() => {
        // Focus back on the button first, so a dialog the action opens returns focus there.
        onSelect();
        action.onSelect();
      }}
    >
      {action.label}
    </button>
  );
}
