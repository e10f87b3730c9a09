import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from './Markdown.tsx';

const render = (text: string, streaming = false) =>
  renderToStaticMarkup(createElement(Markdown, { text, streaming }));

describe('Markdown', () => {
  it('closes what a streaming reply has not closed yet, and only while it streams', () => {
    expect(render('The **top custo', true)).toContain('<strong>top custo</strong>');
    expect(render('The **top custo')).not.toContain('<strong>');
    expect(render('```sql\nSELECT 1', true)).toMatch(
      /<pre><code class="language-sql">SELECT 1\n?<\/code><\/pre>/,
    );
  });

  it('escapes raw HTML and drops javascript: links', () => {
    const html = render('<b onmouseover="x()">hi</b> [a](javascript:alert(1))');
    expect(html).not.toContain('<b ');
    expect(html).toContain('&lt;b onmouseover=');
    expect(html).not.toMatch(/href="javascript:/i);
  });
});
