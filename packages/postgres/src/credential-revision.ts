/** The settings row counting credential revocations (see `AccountStorage.credentialRevision`). */
export const CREDENTIAL_REVISION_KEY = 'credentials.revision';

/**
 * A data-modifying CTE (`bump_revision`) that adds one to the credential revision when the CTE
 * `changed` returned a row: put it in the same statement as the revocation, so both commit together.
 */
export const bumpRevisionCte = (x: string, changed: string): string =>
  `bump_revision AS (
     INSERT INTO ${x}settings AS s (key, value) SELECT '${CREDENTIAL_REVISION_KEY}', '1' FROM (SELECT 1 FROM ${changed} LIMIT 1) AS c
     ON CONFLICT (key) DO UPDATE SET value = (s.value::bigint + 1)::text
   )`;
