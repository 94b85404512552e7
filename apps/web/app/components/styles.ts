/**
 * Class names shared by React components and the static pages' script (app/site/site-script.ts), which
 * must not import React: one place for how a button or a header link looks.
 */
export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost';

const buttonStyles: Record<ButtonVariant, string> = {
  primary: 'bg-brand-600 text-white hover:bg-brand-700 disabled:opacity-50',
  secondary: 'border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 disabled:opacity-60',
  danger: 'bg-red-600 text-white hover:bg-red-700 disabled:opacity-50',
  ghost: 'text-slate-700 hover:bg-slate-100',
};

/** `large`: a page's main call to action. A size given in `extra` would not win over the default one (both apply). */
export function buttonClass(variant: ButtonVariant = 'primary', extra = '', size: 'normal' | 'large' = 'normal'): string {
  const sizing = size === 'large' ? 'px-6 py-3 text-base' : 'px-4 py-2 text-sm';
  return `inline-flex items-center justify-center gap-2 rounded-md ${sizing} font-semibold transition-colors disabled:cursor-not-allowed ${buttonStyles[variant]} ${extra}`;
}

/** A link of the site header's main navigation. */
// Narrower on phones: the visitor's four header links then fit one row under the logo, not two.
export function navLinkClass(active = false): string {
  return `rounded-md px-2 py-2 text-sm font-medium sm:px-3 ${active ? 'bg-brand-50 text-brand-700' : 'text-slate-700 hover:bg-slate-100'}`;
}

/** A white card: a page's sections sit in one each. */
export const CARD_CLASS = 'rounded-xl border border-slate-200 bg-white p-4 sm:p-6';
