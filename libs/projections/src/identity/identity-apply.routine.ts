import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The `identity_apply` function (identity-apply.sql), re-applied by `npm run migrate` in every projection
 * version (the build copies the file beside the compiled code).
 */
export const IDENTITY_APPLY_ROUTINE = {
  name: 'identity_apply',
  sql: readFileSync(join(__dirname, 'identity-apply.sql'), 'utf8'),
};
