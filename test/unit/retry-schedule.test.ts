import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_RETRY_DELAYS_MS,
  nextRetryDelay,
  parseDuration,
  parseDurationList,
} from '../../src/events/retry-schedule.js';

describe('parseDuration', () => {
  it('parses ms, s, m, h, d', () => {
    const table: Array<[string, number]> = [
      ['0ms', 0],
      ['50ms', 50],
      ['1s', 1000],
      ['10s', 10_000],
      ['1.5s', 1500],
      ['5m', 300_000],
      ['2h', 7_200_000],
      ['5d', 432_000_000],
      ['1.5d', 129_600_000],
      [' 10 s ', 10_000],
      ['\t30m\n', 1_800_000],
    ];
    for (const [text, ms] of table) assert.equal(parseDuration(text), ms, text);
  });

  it('throws a clear error on bad input', () => {
    const bad = [
      '',
      ' ',
      '10',
      's',
      '-1s',
      '+1s',
      '1x',
      '1w',
      '1S',
      '1sec',
      'abc',
      '1e3ms',
      '.5s',
      '1.s',
      '1s2s',
      'NaN s',
    ];
    for (const text of bad) {
      assert.throws(() => parseDuration(text), /Invalid duration .*unit ms, s, m, h or d/, text);
    }
  });

  it('refuses values Node timers cannot hold', () => {
    assert.equal(parseDuration('596h'), 596 * 3_600_000);
    assert.throws(() => parseDuration('9999h'), /longer than/);
  });
});

describe('parseDurationList', () => {
  it('parses the default and test lists', () => {
    assert.deepEqual(
      parseDurationList('1m,5m,30m,2h,6h'),
      [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000],
    );
    assert.deepEqual(parseDurationList('50ms,100ms'), [50, 100]);
    assert.deepEqual(parseDurationList('1s'), [1000]);
    assert.deepEqual(parseDurationList(' 1m , 5m ,30m '), [60_000, 300_000, 1_800_000]);
  });

  it('throws on empty lists and empty items, naming the item', () => {
    assert.throws(() => parseDurationList(''), /empty/);
    assert.throws(() => parseDurationList('  '), /empty/);
    assert.throws(() => parseDurationList('1m,,5m'), /item 2 is empty/);
    assert.throws(() => parseDurationList('1m,5m,'), /item 3 is empty/);
    assert.throws(() => parseDurationList(',1m'), /item 1 is empty/);
  });

  it('throws on negative and non-numeric values, naming the item', () => {
    assert.throws(() => parseDurationList('1m,-5m'), /item 2: Invalid duration "-5m"/);
    assert.throws(() => parseDurationList('1m,five minutes'), /item 2: Invalid duration/);
    assert.throws(() => parseDurationList('1m;5m'), /item 1: Invalid duration/);
  });
});

describe('retry schedule', () => {
  it('defaults to 1 min, 5 min, 30 min, 2 h, 6 h', () => {
    assert.deepEqual(DEFAULT_RETRY_DELAYS_MS, [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]);
    assert.ok(Object.isFrozen(DEFAULT_RETRY_DELAYS_MS));
  });

  it('retries after attempts 1..5 and is exhausted after attempt 6', () => {
    const d = DEFAULT_RETRY_DELAYS_MS;
    assert.equal(nextRetryDelay(1, d), 60_000);
    assert.equal(nextRetryDelay(2, d), 300_000);
    assert.equal(nextRetryDelay(3, d), 1_800_000);
    assert.equal(nextRetryDelay(4, d), 7_200_000);
    assert.equal(nextRetryDelay(5, d), 21_600_000);
    assert.equal(nextRetryDelay(6, d), null);
    assert.equal(nextRetryDelay(7, d), null);
  });

  it('follows a shortened list', () => {
    const d = parseDurationList('50ms,100ms');
    assert.deepEqual(
      [1, 2, 3].map((n) => nextRetryDelay(n, d)),
      [50, 100, null],
    );
    assert.equal(nextRetryDelay(1, []), null);
  });

  it('refuses attempt numbers that are not integers >= 1', () => {
    for (const n of [0, -1, 1.5, Number.NaN])
      assert.throws(() => nextRetryDelay(n, DEFAULT_RETRY_DELAYS_MS), RangeError);
  });
});
