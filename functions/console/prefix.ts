/** Where functions/app.ts mounts the console; its paths are relative to it. Apart, so the app knows it before loading the console. */
export const CONSOLE_PREFIX = '/console';
