import pg from 'pg';

const proto = (pg as any).Client.prototype;
const orig = proto.query;
(globalThis as any).__sqllog = [];
proto.query = function (this: unknown, ...a: any[]) {
  const q = typeof a[0] === 'string' ? a[0] : a[0]?.text;
  if ((globalThis as any).__sqlon) console.log('SQL>', String(q).replace(/\s+/g, ' ').slice(0, 260));
  return orig.apply(this, a);
};
