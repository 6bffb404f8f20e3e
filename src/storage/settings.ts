// Service-wide secrets kept in the database, so that every instance of a fleet shares them: the cursor MAC
// key, the signed-URL key, and the admin token's hash.
import { randomBytes } from 'node:crypto';
import type { Queryable } from './db.js';

export async function readSetting(db: Queryable, name: string): Promise<string | null> {
  const rows = await db.query<{ value: string }>('select value from service_settings where name = $1', [
    name,
  ]);
  return rows[0]?.value ?? null;
}

export async function writeSetting(db: Queryable, name: string, value: string): Promise<void> {
  await db.query(
    'insert into service_settings (name, value) values ($1, $2) on conflict (name) do update set value = excluded.value',
    [name, value],
  );
}

/** A random 32-byte secret created on first use; concurrent first uses agree on one value. */
export async function serviceSecret(db: Queryable, name: string): Promise<Buffer> {
  await db.query('insert into service_settings (name, value) values ($1, $2) on conflict (name) do nothing', [
    name,
    randomBytes(32).toString('base64'),
  ]);
  return Buffer.from((await readSetting(db, name)) as string, 'base64');
}
