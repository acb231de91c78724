/** The storage cannot be opened or used (a data dir, a database): a user-facing condition, told in one line. */
export class StorageRefused extends Error {}
