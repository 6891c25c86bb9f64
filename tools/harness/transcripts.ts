// Reads OpenClaw session transcripts from an agent's SQLite store (table transcript_events,
// rows either plain JSON or zstd-compressed JSON), read-only so a running gateway is not disturbed.
import { existsSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import * as zlib from "node:zlib";

export type TranscriptEvent = {
  sessionId: string;
  sessionKey?: string;
  seq: number;
  type?: string;
  message?: TranscriptMessage;
  raw: Record<string, unknown>;
};

export type TranscriptMessage = {
  role?: string;
  content?: unknown;
  toolCallId?: string;
  toolName?: string;
  details?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
};

export type TranscriptToolResult = {
  sessionKey?: string;
  sessionId: string;
  seq: number;
  toolCallId?: string;
  toolName?: string;
  text: string;
  details?: Record<string, unknown>;
  isError?: boolean;
};

type Row = { session_id: string; session_key: string | null; seq: number; event_json: string | null; event_zstd: Uint8Array | null };

// zstd arrived in node:zlib with Node 22.15 / 23.8; older runtimes cannot read compressed rows.
const zstdDecompress = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Buffer }).zstdDecompressSync;

function decode(row: Row): Record<string, unknown> {
  if (row.event_json !== null) return JSON.parse(row.event_json);
  if (!row.event_zstd) return {};
  if (!zstdDecompress) throw new Error("transcript row is zstd-compressed but node:zlib has no zstdDecompressSync");
  return JSON.parse(zstdDecompress(row.event_zstd).toString("utf8"));
}

export function readTranscript(dbFile: string, opts: { sessionKey?: string; sessionId?: string } = {}): TranscriptEvent[] {
  if (!existsSync(dbFile)) return [];
  const db = new DatabaseSync(dbFile, { readOnly: true });
  try {
    const where: string[] = [];
    const args: string[] = [];
    if (opts.sessionKey) {
      where.push("w.session_key = ?");
      args.push(opts.sessionKey);
    }
    if (opts.sessionId) {
      where.push("e.session_id = ?");
      args.push(opts.sessionId);
    }
    const sql =
      "SELECT e.session_id, w.session_key, e.seq, e.event_json, e.event_zstd FROM transcript_events e " +
      "LEFT JOIN session_windows w ON w.session_id = e.session_id" +
      (where.length ? ` WHERE ${where.join(" AND ")}` : "") +
      " ORDER BY e.created_at, e.seq";
    const rows = db.prepare(sql).all(...args) as Row[];
    return rows.map((row) => {
      const raw = decode(row);
      return {
        sessionId: row.session_id,
        sessionKey: row.session_key ?? undefined,
        seq: row.seq,
        type: typeof raw.type === "string" ? raw.type : undefined,
        message: (raw.message as TranscriptMessage | undefined) ?? undefined,
        raw,
      };
    });
  } finally {
    db.close();
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}

/** Stored tool results with their `details` (which the model never sees). */
export function toolResultsFrom(events: TranscriptEvent[]): TranscriptToolResult[] {
  return events
    .filter((e) => e.message?.role === "toolResult")
    .map((e) => ({
      sessionKey: e.sessionKey,
      sessionId: e.sessionId,
      seq: e.seq,
      toolCallId: e.message?.toolCallId,
      toolName: e.message?.toolName,
      text: textOf(e.message?.content),
      details: e.message?.details,
      isError: e.message?.isError,
    }));
}
