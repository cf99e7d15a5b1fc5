import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Field, type FieldControl } from './field.tsx';

const input = (control: FieldControl) => createElement('input', { ...control, name: 'slug' });

const render = (props: { hint?: string; error?: string }) =>
  renderToStaticMarkup(createElement(Field, { id: 'agent-slug', label: 'Slug', ...props, children: input }));

describe('Field', () => {
  it('ties the label to the control and describes nothing without a hint or an error', () => {
    expect(render({})).toBe(
      '<div class="field"><label for="agent-slug">Slug</label><input id="agent-slug" name="slug"/></div>',
    );
  });

  it('describes the control by its hint, and by its error too, marked invalid and announced', () => {
    const hinted = render({ hint: 'Lowercase letters' });
    expect(hinted).toContain('<input id="agent-slug" aria-describedby="agent-slug-help" name="slug"/>');
    expect(hinted).toContain('<small id="agent-slug-help" class="help">Lowercase letters</small>');
    expect(hinted).not.toContain('aria-invalid');

    const failed = render({ hint: 'Lowercase letters', error: 'Taken' });
    expect(failed).toContain(
      '<input id="agent-slug" aria-describedby="agent-slug-help agent-slug-error" aria-invalid="true" name="slug"/>',
    );
    expect(failed).toContain('<small id="agent-slug-error" class="field-error" role="alert">Taken</small>');
  });
});
