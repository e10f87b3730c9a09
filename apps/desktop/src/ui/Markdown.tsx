// Model replies as markdown (GFM: tables, task lists, strikethrough), safe by default: raw HTML in a
// reply is shown as text, never parsed (no rehype-raw), so a <script> or an onerror attribute a
// model was tricked into writing cannot run. Images are not loaded: a reply could otherwise make the
// browser fetch a URL that carries data out (prompt injection); they show as links instead.
import type { ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remend from 'remend';

const REMARK_PLUGINS = [remarkGfm];

const COMPONENTS: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  img: ({ src, alt }) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noopener noreferrer">
      {alt ? `image: ${alt}` : 'image'}
    </a>
  ),
  table: ({ node: _node, ...props }) => (
    <div className="md-table">
      <table {...props} />
    </div>
  ),
};

/**
 * Renders `text` as markdown. While `streaming`, remend closes what the model has not closed yet
 * (a half-written **bold**, an open code fence), so the text does not flicker between forms.
 */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }): ReactNode {
  return (
    <div className="markdown" data-testid="markdown">
      <ReactMarkdown remarkPlugins={REMARK_PLUGINS} components={COMPONENTS}>
        {streaming ? remend(text) : text}
      </ReactMarkdown>
    </div>
  );
}
