import { useEffect, useId, useRef } from 'react';
import type { ReactNode } from 'react';

export interface EmptyCanvasProps {
  /** What is missing, as a heading: "No route open". */
  title: string;
  /** What to do about it, in a sentence or two. */
  children: ReactNode;
  /** Starts a new route, as the route list's "+ New route" does; without it, no button. */
  onNewRoute?(): void;
}

/**
 * The canvas area with nothing to draw (no route open, nothing watched yet): says what to do next,
 * with a "+ New route" of its own. Without a side panel the canvas takes the whole width
 * (`styles.css`), so the empty state is centred in all of it.
 */
export function EmptyCanvas({ title, children, onNewRoute }: EmptyCanvasProps) {
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  // Focus left with what it was on (the deleted route's panel, the sign-in form): the way on takes it,
  // so the keyboard goes on from here and not from the top of the page.
  useEffect(() => {
    if (document.activeElement === null || document.activeElement === document.body) button.current?.focus();
  }, []);
  return (
    <main className="canvas-area empty" aria-labelledby={id}>
      <div className="empty-state">
        <h2 id={id}>{title}</h2>
        <p>{children}</p>
        {onNewRoute && (
          <button ref={button} type="button" className="primary" onClick={onNewRoute}>
            + New route
          </button>
        )}
      </div>
    </main>
  );
}
