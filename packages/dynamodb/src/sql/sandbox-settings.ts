// DuckDB's settings for a statement's sandbox, applied when the instance is made and then locked:
// no file, network or extension, and a bounded working set that spills nowhere.
export const SANDBOX_SETTINGS: Readonly<Record<string, string>> = {
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
  allow_unsigned_extensions: 'false',
  memory_limit: '256MB',
  threads: '2',
};
