/**
 * Go's sort.SliceStable step for step (insertion sort on blocks of 20, then in-place symmetric
 * merges). Strategic merge patch orders list items with a "less" that is not a strict order when
 * an item is missing from the order list; reproducing Go's exact sequence of comparisons and swaps
 * gives kube's result in those cases too.
 */

type Less = (i: number, j: number) => boolean;

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

function insertionSort<T>(a: T[], less: Less, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    for (let j = i; j > lo && less(j, j - 1); j--) swap(a, j, j - 1);
  }
}

function swapRange<T>(a: T[], x: number, y: number, n: number): void {
  for (let i = 0; i < n; i++) swap(a, x + i, y + i);
}

/** rotates a[lo:hi] so that a[m:hi] comes before a[lo:m], by block swaps */
function rotate<T>(a: T[], lo: number, m: number, hi: number): void {
  let i = m - lo;
  let j = hi - m;
  while (i !== j) {
    if (i > j) {
      swapRange(a, m - i, m, j);
      i -= j;
    } else {
      swapRange(a, m - i, m + j - i, i);
      j -= i;
    }
  }
  swapRange(a, m - i, m, i);
}

/** merges the sorted runs a[lo:m] and a[m:hi] in place (SymMerge) */
function symMerge<T>(a: T[], less: Less, lo: number, m: number, hi: number): void {
  if (m - lo === 1) {
    // one element on the left: find its place on the right by binary search, then shift it there
    let i = m;
    let j = hi;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (less(h, lo)) i = h + 1;
      else j = h;
    }
    for (let k = lo; k < i - 1; k++) swap(a, k, k + 1);
    return;
  }
  if (hi - m === 1) {
    let i = lo;
    let j = m;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (!less(m, h)) i = h + 1;
      else j = h;
    }
    for (let k = m; k > i; k--) swap(a, k, k - 1);
    return;
  }
  const mid = (lo + hi) >>> 1;
  const n = mid + m;
  let start: number;
  let r: number;
  if (m > mid) {
    start = n - hi;
    r = mid;
  } else {
    start = lo;
    r = m;
  }
  const p = n - 1;
  while (start < r) {
    const c = (start + r) >>> 1;
    if (!less(p - c, c)) start = c + 1;
    else r = c;
  }
  const end = n - start;
  if (start < m && m < end) rotate(a, start, m, end);
  if (lo < start && start < mid) symMerge(a, less, lo, start, mid);
  if (mid < end && end < hi) symMerge(a, less, mid, end, hi);
}

/** sorts `items` in place like sort.SliceStable(items, func(i, j int) bool { return less(items[i], items[j]) }) */
export function goSliceStable<T>(items: T[], less: (x: T, y: T) => boolean): T[] {
  const at: Less = (i, j) => less(items[i], items[j]);
  const n = items.length;
  let blockSize = 20;
  let lo = 0;
  let hi = blockSize;
  while (hi <= n) {
    insertionSort(items, at, lo, hi);
    lo = hi;
    hi += blockSize;
  }
  insertionSort(items, at, lo, n);
  while (blockSize < n) {
    lo = 0;
    hi = 2 * blockSize;
    while (hi <= n) {
      symMerge(items, at, lo, lo + blockSize, hi);
      lo = hi;
      hi += 2 * blockSize;
    }
    const m = lo + blockSize;
    if (m < n) symMerge(items, at, lo, m, n);
    blockSize *= 2;
  }
  return items;
}
