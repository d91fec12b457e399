// any-module.d.ts - for sr-mcp's typescript runner (ts.js): a module no
// types describe ('fs' without @types/node, a package without types) is of
// type any; a package's own types, where it has them, are checked.
declare module '*';
