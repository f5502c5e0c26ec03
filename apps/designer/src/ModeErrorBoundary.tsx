import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';

export interface ModeErrorBoundaryProps {
  children: ReactNode;
  /** Leaves the failed mode (the draft lives above this boundary, so it is kept). */
  onLeave(): void;
}

/**
 * Keeps a failure inside one mode (a simulation that throws, a watch that cannot render) from
 * unmounting the whole designer and losing the unsaved draft: the mode is replaced by its error.
 */
export class ModeErrorBoundary extends Component<ModeErrorBoundaryProps, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('A designer mode failed', error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <main className="canvas-area empty">
        <p className="error" role="alert">
          This mode failed: {error.message}{' '}
          <button type="button" className="link" onClick={this.props.onLeave}>
            back to editing
          </button>
        </p>
      </main>
    );
  }
}
