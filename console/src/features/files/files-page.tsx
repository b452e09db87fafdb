import { useState } from 'preact/hooks';
import { useSession } from '../../session/session-context.js';
import { CopyButton } from '../../shared/copy-button.js';
import { DateTime } from '../../shared/date-time.js';
import { Field } from '../../shared/field.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { ErrorState, Loaded } from '../../shared/states.js';
import { type Problem, problemOf, useRequest } from '../../shared/use-request.js';
import { listFiles, sizeOf, type UploadedFile, upload } from './files.data.js';

export function FilesPage() {
  const { session, client } = useSession();
  const [page, setPage] = useState(0);
  const list = useRequest(() => listFiles(client, page), [page]);
  const [file, setFile] = useState<File | null>(null);
  const [description, setDescription] = useState('');
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [uploaded, setUploaded] = useState<UploadedFile | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(file ? null : 'Choose a file to upload.');
    if (!file) return;
    setProblem(null);
    setUploaded(null);
    setProgress({ sent: 0, total: file.size });
    try {
      setUploaded(await upload(session, file, description, (sent, total) => setProgress({ sent, total })));
      list.reload();
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setProgress(null);
    }
  };

  return (
    <>
      <PageTitle name="Files" />
      <form class="card form" onSubmit={submit} noValidate aria-labelledby="upload-title">
        <h2 id="upload-title">Upload a file</h2>
        <Field label="File" error={error}>
          {(p) => <input {...p} type="file" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />}
        </Field>
        <Field label="Description (alt text, optional)">
          {(p) => <input {...p} type="text" value={description} maxLength={1000} onInput={(e) => setDescription(e.currentTarget.value)} />}
        </Field>
        {progress ? (
          <div class="progress">
            <label for="upload-progress">Uploading {file?.name}</label>
            <progress id="upload-progress" max={Math.max(progress.total, 1)} value={progress.sent}>
              {Math.round((100 * progress.sent) / Math.max(progress.total, 1))}%
            </progress>
          </div>
        ) : null}
        {problem ? <ErrorState problem={problem} /> : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={progress !== null}>
            Upload
          </button>
        </div>
      </form>
      {uploaded ? (
        <section class="card uploaded" aria-labelledby="uploaded-title">
          <h2 id="uploaded-title">Uploaded {uploaded.name}</h2>
          <p>
            Its public URL (anyone with it can download the file):
            <br />
            <a class="file-url" href={uploaded.url}>
              {uploaded.url}
            </a>{' '}
            <CopyButton value={uploaded.url} label="the file's URL" />
          </p>
        </section>
      ) : null}
      <section aria-labelledby="list-title">
        <h2 id="list-title">The community’s files</h2>
        <Loaded state={list} what="files">
          {(files) => (
            <PagedTable
              caption="Files, newest first"
              page={files}
              rowKey={(file) => file.id}
              onPage={setPage}
              empty="No file has been uploaded yet."
              columns={[
                { header: 'Name', cell: (file) => file.name },
                { header: 'Type', cell: (file) => file.mimetype },
                { header: 'Size', cell: (file) => sizeOf(file.size) },
                { header: 'Uploaded', cell: (file) => <DateTime value={file.created_at} /> },
                {
                  header: 'Public URL',
                  cell: (file) => (
                    <span class="file-link">
                      <a href={file.url}>{file.url}</a> <CopyButton value={file.url} label={`the URL of ${file.name}`} />
                    </span>
                  ),
                },
              ]}
            />
          )}
        </Loaded>
      </section>
    </>
  );
}
