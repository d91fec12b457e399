// ts-hooks.mjs - module hooks of sr-mcp's typescript runner (registered
// by ts.js): the code's module, file:///run/sr/main.ts, and the workspace's
// .ts files it imports are the JavaScript ts.js emitted for them; a
// relative import from one of them names such a file as TypeScript does
// ('./util', './util.js' for util.ts); what the code imports and Node
// cannot find from /run/sr is looked up again as if the code were
// /workspace/main.ts (the workspace's node_modules, its files).
let main, asIf, files;
export function initialize(data) {
  main = new URL(`file://${data.main}`).href;
  asIf = new URL(`file://${data.asIf}`).href;
  files = data.files;
}
// A relative import from a checked file that names another one.
function emitted(spec, parent) {
  if (!(parent in files) || !/^\.\.?\//.test(spec))
    return null;
  const u = new URL(spec, parent === main ? asIf : parent).href;
  for (const c of [u, `${u}.ts`, u.replace(/\.m?js$/, '.ts'), `${u}/index.ts`])
    if (c in files && c !== main)
      return c;
  return null;
}
export async function resolve(spec, ctx, next) {
  const ts = spec === main ? main : emitted(spec, ctx.parentURL);
  if (ts)
    return { url: ts, format: 'module', shortCircuit: true };
  if (ctx.parentURL !== main)
    return next(spec, ctx);
  try {
    return await next(spec, ctx);
  } catch (e) {
    if (e && e.code !== 'ERR_MODULE_NOT_FOUND')
      throw e;
    return next(spec, { ...ctx, parentURL: asIf });
  }
}
export async function load(url, ctx, next) {
  if (url in files)
    return { format: 'module', source: files[url], shortCircuit: true };
  return next(url, ctx);
}
