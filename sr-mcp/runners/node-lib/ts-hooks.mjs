// ts-hooks.mjs - module hooks of sr-mcp's typescript runner (registered
// by ts.js): the code's module, file:///run/sr/main.ts, is the JavaScript
// ts.js emitted; what it imports and Node cannot find from /run/sr is
// looked up again as if it were /workspace/main.ts (the workspace's
// node_modules, its files).
let main, asIf, js;
export function initialize(data) {
  main = new URL(`file://${data.main}`).href;
  asIf = new URL(`file://${data.asIf}`).href;
  js = data.js;
}
export async function resolve(spec, ctx, next) {
  if (spec === main)
    return { url: main, shortCircuit: true };
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
  if (url === main)
    return { format: 'module', source: js, shortCircuit: true };
  return next(url, ctx);
}
