// Error type shared by the backend stand-in. Every error leaves as JSON `{ code, message, meta? }`.

export class ApiError extends Error {
  status: number;
  code: string;
  meta: Record<string, unknown> | undefined;
  headers: Record<string, string> | undefined;

  constructor(status: number, code: string, message: string, meta?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.status = status;
    this.code = code;
    this.meta = meta;
    this.headers = headers;
  }
}

export const badRequest = (code: string, message: string, meta?: Record<string, unknown>) => new ApiError(400, code, message, meta);
