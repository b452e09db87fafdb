import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readTimeMinutes } from '../../src/rich-text/index.js';

const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');

describe('readTimeMinutes', () => {
  it('is 0 for empty or whitespace-only text', () => {
    assert.equal(readTimeMinutes(''), 0);
    assert.equal(readTimeMinutes(' \n\t '), 0);
  });

  it('is at least 1 for any text with a word', () => {
    assert.equal(readTimeMinutes('hi'), 1);
  });

  it('rounds words / 200 up', () => {
    assert.equal(readTimeMinutes(words(200)), 1);
    assert.equal(readTimeMinutes(words(201)), 2);
    assert.equal(readTimeMinutes(words(1000)), 5);
  });

  it('counts words separated by any whitespace, including newlines', () => {
    assert.equal(readTimeMinutes(`${words(150)}\n\n${words(100)}`), 2);
  });
});
