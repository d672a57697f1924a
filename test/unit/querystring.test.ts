/**
 * parseQueryString: the four list spellings, and keys that must stay plain data.
 */
import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/lib/querystring.js';

/** A plain-object copy, so toEqual compares values and not prototypes. */
const plain = (raw: string) => ({ ...parseQueryString(raw) });

describe('parseQueryString', () => {
  it('keeps k=a,b as one string (list parameters split it later)', () => {
    expect(plain('k=a,b')).toEqual({ k: 'a,b' });
  });

  it.each([['k[]=a&k[]=b'], ['k[0]=a&k[1]=b'], ['k[1]=b&k[0]=a'], ['k=a&k=b'], ['k%5B%5D=a&k%5B%5D=b']])('reads %s as the list [a, b]', (raw) => {
    expect(plain(raw)).toEqual({ k: ['a', 'b'] });
  });

  it('keeps a single bracketed value a list', () => {
    expect(plain('k[]=a')).toEqual({ k: ['a'] });
    expect(plain('k[0]=a')).toEqual({ k: ['a'] });
  });

  it('keeps the order of k[] items as sent, and merges mixed spellings', () => {
    expect(plain('k[]=c&k[]=a&k[]=b')).toEqual({ k: ['c', 'a', 'b'] });
    expect(plain('k=a&k[]=b')).toEqual({ k: ['a', 'b'] });
    expect(plain('k=a&k=b&k=c')).toEqual({ k: ['a', 'b', 'c'] });
  });

  it('decodes values and keys, with + as a space', () => {
    expect(plain('search=caf%C3%A9+concert&a%20b=1')).toEqual({ search: 'café concert', 'a b': '1' });
  });

  it('keeps empty values and bare keys as empty strings', () => {
    expect(plain('a=&b')).toEqual({ a: '', b: '' });
    expect(plain('')).toEqual({});
  });

  it('keeps other keys exactly as sent, $-prefixed and nested ones included', () => {
    expect(plain('$where=1&a[b]=2&a[$ne]=3')).toEqual({ $where: '1', 'a[b]': '2', 'a[$ne]': '3' });
  });

  it('treats __proto__ and constructor keys as plain data', () => {
    const parsed = parseQueryString('__proto__[polluted]=yes&__proto__=x&constructor[prototype][bad]=1&k=v');
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.keys(parsed).sort()).toEqual(['__proto__', '__proto__[polluted]', 'constructor[prototype][bad]', 'k'].sort());
    expect(parsed['__proto__']).toBe('x');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).bad).toBeUndefined();

    const bracketed = parseQueryString('__proto__[]=a&__proto__[]=b');
    expect(Object.getPrototypeOf(bracketed)).toBeNull();
    expect(bracketed['__proto__']).toEqual(['a', 'b']);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
