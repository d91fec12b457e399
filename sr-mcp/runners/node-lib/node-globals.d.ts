// node-globals.d.ts - what sr-mcp's typescript runner (ts.js) tells the
// type checker of Node.js's globals, loosely typed (any), unless the
// workspace has @types/node. The check is of the code's own types;
// Node.js's API is checked when it runs.
type LooseClass = { [k: string]: any };
declare var process: any;
declare var require: any;
declare var console: any;
declare var global: any;
declare var crypto: any;
declare var performance: any;
declare var WebAssembly: any;
declare function fetch(input: any, init?: any): Promise<any>;
declare function setTimeout(cb: (...args: any[]) => void, ms?: number, ...args: any[]): any;
declare function setInterval(cb: (...args: any[]) => void, ms?: number, ...args: any[]): any;
declare function setImmediate(cb: (...args: any[]) => void, ...args: any[]): any;
declare function clearTimeout(t: any): void;
declare function clearInterval(t: any): void;
declare function clearImmediate(t: any): void;
declare function queueMicrotask(cb: () => void): void;
declare function structuredClone<T>(value: T, options?: any): T;
declare function atob(s: string): string;
declare function btoa(s: string): string;
declare class Buffer extends Uint8Array { [k: string]: any; static [k: string]: any; }
declare class URL { constructor(url: any, base?: any); [k: string]: any; static [k: string]: any; }
declare class URLSearchParams { constructor(init?: any); [k: string]: any; }
declare class TextEncoder { [k: string]: any; }
declare class TextDecoder { constructor(label?: string, options?: any); [k: string]: any; }
declare class AbortController { [k: string]: any; }
declare class AbortSignal { [k: string]: any; static [k: string]: any; }
declare class EventTarget { [k: string]: any; }
declare class Event { constructor(type: string, init?: any); [k: string]: any; }
declare class Blob { constructor(parts?: any[], options?: any); [k: string]: any; }
declare class Headers { constructor(init?: any); [k: string]: any; }
declare class Request { constructor(input: any, init?: any); [k: string]: any; }
declare class Response { constructor(body?: any, init?: any); [k: string]: any; static [k: string]: any; }
declare class FormData { [k: string]: any; }
declare namespace NodeJS {
  type Timeout = any;
  type Immediate = any;
  type ErrnoException = Error & LooseClass;
  type ProcessEnv = { [k: string]: string | undefined };
}
