// SHA-256 hex of a migration's SQL with WebCrypto, so the runner can tell when a landed file was edited.

/** Line endings are normalised first, so a CRLF checkout of an unchanged file keeps its checksum. */
export async function migrationChecksum(sql: string): Promise<string> {
  const bytes = new TextEncoder().encode(sql.replace(/\r\n/g, '\n'));
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
