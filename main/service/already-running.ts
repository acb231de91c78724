/** Another server holds the data dir: told in one line. Its own module, so that the command line can tell it without loading the service. */
export class AlreadyRunning extends Error {}
