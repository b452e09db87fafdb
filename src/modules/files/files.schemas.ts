import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from '../../schemas/common.schemas.js';

export const FileSchema = Type.Object({
  id: Uuid(),
  created_at: Type.String({ description: 'When the file was uploaded.' }),
  name: Type.String({ description: 'The filename given at upload.' }),
  title: Type.Union([Type.String(), Type.Null()], { description: 'The description (alt text) given at upload; null when none.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  mimetype: Type.String({ description: "Detected from the file's bytes, not taken from the client." }),
  url: Type.String({ description: 'Public URL (no key): GET /files/{id}/{name}.' }),
});
export type FileObject = Static<typeof FileSchema>;

export const UploadResponseSchema = Type.Object({ success: Type.Literal(true), data: FileSchema });

export const DownloadParamsSchema = Type.Object({
  file_id: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** The parts of an upload, for the OpenAPI document (the route reads and checks them itself: files.routes.ts). */
export const UploadFormSchema = Type.Object({
  file: Type.String({ format: 'binary', description: 'The bytes; at most FILES_MAX_MB MiB.' }),
  filename: Type.String({ minLength: 1, maxLength: 255, description: 'With its extension, e.g. photo.png.' }),
  size: Type.Integer({ minimum: 1, description: 'Bytes of `file`; must be what is sent.' }),
  description: Type.Optional(Type.String({ maxLength: 1000, description: 'Alt text; answered as `title`.' })),
});
