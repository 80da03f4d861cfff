// `import text from './file?raw'`: the file's text as a string (see lib/console/page/script.ts for who provides it).
declare module '*?raw' {
  const text: string;
  export default text;
}
