import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * Asks before a destructive action, in a native modal `<dialog>` (focus trapped and Escape handled
 * by the browser). Open while `open` is true; `onClose(true)` when confirmed.
 */
export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel,
  onClose,
}: {
  open: boolean;
  title: string;
  message: string;
  confirmLabel: string;
  onClose: (confirmed: boolean) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Its own id: a page may hold more than one dialog (the Webhooks page's endpoint and delivery log).
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby={titleId} onCancel={() => onClose(false)}>
      <h2 id={titleId}>{title}</h2>
      <p>{message}</p>
      <div class="actions">
        <button type="button" onClick={() => onClose(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => onClose(true)}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
