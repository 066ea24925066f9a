//! [`Deck`]: the wait queue's storage, a fixed array whose live entries form
//! one contiguous run with free room on both sides.
//!
//! The queue is kept sorted (FCFS or shortest-first order) and read as a
//! slice, and the common edits are at its two ends: arrivals join the tail,
//! starts leave from the head. A plain vector pays a shift of the whole
//! queue for every start from the head; here an insertion or removal shifts
//! whichever side of the position is shorter, so both ends cost O(1) and a
//! middle edit costs at most half the queue. When the side to shift has no
//! room left the live run is first moved back to the middle (one shift of
//! the queue that buys room for about `(N - len) / 2` more edits at that end).
//!
//! Invariant: `head + len <= N`; the live entries are `buf[head..head + len]`.
//! Entries outside the run hold stale copies and are never read.

use core::fmt;
use core::ops::{Deref, DerefMut};

/// A fixed-capacity sequence of `N` `Copy` entries, read as a slice, with
/// cheap insertion and removal at both ends.
#[derive(Clone)]
pub struct Deck<T: Copy, const N: usize> {
    buf: [T; N],
    head: usize,
    len: usize,
}

impl<T: Copy, const N: usize> Deck<T, N> {
    /// An empty deck; every slot starts as a copy of `fill` (never read).
    #[inline(always)]
    pub fn new(fill: T) -> Self {
        Self {
            buf: [fill; N],
            head: N / 2,
            len: 0,
        }
    }

    /// Empties the deck in place (the slots keep their stale copies, which
    /// are never read): it is then as [`Deck::new`] left it.
    pub fn clear(&mut self) {
        self.head = N / 2;
        self.len = 0;
    }

    /// Whether all `N` slots are live.
    pub const fn is_full(&self) -> bool {
        self.len >= N
    }

    /// The end of the live run (`head + len`, at most `N`).
    const fn end(&self) -> usize {
        self.head.saturating_add(self.len)
    }

    /// Moves the live run so that the free room is split evenly around it.
    fn recentre(&mut self) {
        let new_head = N.saturating_sub(self.len) / 2;
        let (head, end) = (self.head, self.end());
        if new_head != head && end <= N && new_head.saturating_add(self.len) <= N {
            self.buf.copy_within(head..end, new_head);
            self.head = new_head;
        }
    }

    /// Inserts `value` at position `at` (`0..=len`), shifting the shorter
    /// side. Returns the value back when the deck is full or `at > len`.
    pub fn insert(&mut self, at: usize, value: T) -> Result<(), T> {
        if self.is_full() || at > self.len {
            return Err(value);
        }
        let before = at; // entries to shift left
        let after = self.len.saturating_sub(at); // entries to shift right
        let prefer_front = before < after;
        let room_front = self.head > 0;
        let room_back = self.end() < N;
        if (prefer_front && !room_front) || (!prefer_front && !room_back) {
            self.recentre();
        }
        let room_front = self.head > 0;
        let room_back = self.end() < N;
        let pos = self.head.saturating_add(at);
        if (prefer_front && room_front) || !room_back {
            // Shift `[head, pos)` one slot left.
            let new_head = self.head.saturating_sub(1);
            if self.head == 0 {
                return Err(value);
            }
            self.buf.copy_within(self.head..pos, new_head);
            self.head = new_head;
        } else {
            // Shift `[pos, end)` one slot right.
            let end = self.end();
            self.buf.copy_within(pos..end, pos.saturating_add(1));
        }
        self.len = self.len.saturating_add(1);
        match self.buf.get_mut(self.head.saturating_add(at)) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(value),
        }
    }

    /// Replaces the contents, in place, with the first `len` values of
    /// `values` (fewer if they run out; at most `N`), the free room split
    /// evenly around them. A restored wait queue is written so, one copy
    /// per entry.
    pub fn refill(&mut self, len: usize, values: impl IntoIterator<Item = T>) {
        let len = len.min(N);
        self.head = N.saturating_sub(len) / 2;
        self.len = 0;
        let slots = self.buf.iter_mut().skip(self.head).take(len);
        for (slot, value) in slots.zip(values) {
            *slot = value;
            self.len = self.len.saturating_add(1);
        }
        if self.len == 0 {
            self.head = N / 2;
        }
    }

    /// Removes and returns the entry at `index`, shifting the shorter side;
    /// `None` when `index >= len`.
    pub fn remove(&mut self, index: usize) -> Option<T> {
        if index >= self.len {
            return None;
        }
        let pos = self.head.saturating_add(index);
        let value = *self.buf.get(pos)?;
        let after = self.len.saturating_sub(index).saturating_sub(1);
        if index < after {
            // Shift `[head, pos)` one slot right.
            let head = self.head;
            self.buf.copy_within(head..pos, head.saturating_add(1));
            self.head = head.saturating_add(1);
        } else {
            // Shift `(pos, end)` one slot left.
            let end = self.end();
            self.buf.copy_within(pos.saturating_add(1)..end, pos);
        }
        self.len = self.len.saturating_sub(1);
        if self.len == 0 {
            self.head = N / 2;
        }
        Some(value)
    }
}

impl<T: Copy, const N: usize> Deref for Deck<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.buf.get(self.head..self.end()).unwrap_or(&[])
    }
}

impl<T: Copy, const N: usize> DerefMut for Deck<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        let (head, end) = (self.head, self.end());
        self.buf.get_mut(head..end).unwrap_or(&mut [])
    }
}

impl<'a, T: Copy, const N: usize> IntoIterator for &'a Deck<T, N> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + fmt::Debug, const N: usize> fmt::Debug for Deck<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Deck;
    use std::format;

    /// A tiny deterministic generator (xorshift) for the model test.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// A cleared deck is empty and fills again as a new one does.
    #[test]
    fn clear_empties_in_place() {
        let mut deck: Deck<u32, 4> = Deck::new(0);
        for (at, v) in [(0, 1), (1, 2), (0, 3), (3, 4)] {
            deck.insert(at, v).unwrap();
        }
        assert!(deck.is_full());
        deck.clear();
        assert!(deck.is_empty() && !deck.is_full());
        for v in 5..9 {
            deck.insert(0, v).unwrap();
        }
        assert_eq!(&deck[..], &[8, 7, 6, 5]);
    }

    /// Random inserts and removes against a plain array model, for every
    /// capacity up to 9: the live slice always equals the model.
    #[test]
    fn matches_a_plain_array_model() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for round in 0..400 {
            let mut deck: Deck<u32, 9> = Deck::new(u32::MAX);
            let mut model = [0u32; 9];
            let mut len = 0usize;
            for step in 0..200u32 {
                let r = next(&mut state);
                // Bias: some rounds mostly append and pop the head (FCFS).
                let fifo = round % 3 == 0;
                if r % 2 == 0 {
                    let at = if fifo {
                        len
                    } else {
                        (r / 2) as usize % (len + 2)
                    };
                    let ok = deck.insert(at, step);
                    if len < 9 && at <= len {
                        assert_eq!(ok, Ok(()));
                        model.copy_within(at..len, at + 1);
                        model[at] = step;
                        len += 1;
                    } else {
                        assert_eq!(ok, Err(step));
                    }
                } else {
                    let index = if fifo {
                        0
                    } else {
                        (r / 2) as usize % (len + 1)
                    };
                    let got = deck.remove(index);
                    if index < len {
                        assert_eq!(got, Some(model[index]));
                        model.copy_within(index + 1..len, index);
                        len -= 1;
                    } else {
                        assert_eq!(got, None);
                    }
                }
                assert_eq!(&deck[..], &model[..len], "round {round} step {step}");
                assert_eq!(deck.is_full(), len == 9);
            }
        }
    }

    #[test]
    fn fifo_use_stays_cheap_and_correct_past_the_array_end() {
        let mut deck: Deck<u32, 4> = Deck::new(0);
        for i in 0..100u32 {
            assert_eq!(deck.insert(deck.len(), i), Ok(()));
            if i >= 2 {
                assert_eq!(deck.remove(0), Some(i - 2));
            }
        }
        assert_eq!(&deck[..], &[98, 99]);
        deck[1] = 7;
        assert_eq!(&deck[..], &[98, 7]);
        assert_eq!(format!("{deck:?}"), "[98, 7]");
    }

    /// A refill replaces everything, centred, and the deck works on from
    /// there; a short iterator or a length past `N` is cut.
    #[test]
    fn refill_replaces_the_contents() {
        let mut d: Deck<u32, 8> = Deck::new(0);
        for v in [1, 2, 3] {
            d.insert(d.len(), v).unwrap();
        }
        d.refill(4, [10, 11, 12, 13, 14]);
        assert_eq!(&d[..], &[10, 11, 12, 13]);
        assert_eq!(d.head, 2);
        d.insert(0, 9).unwrap();
        d.insert(5, 15).unwrap();
        assert_eq!(&d[..], &[9, 10, 11, 12, 13, 15]);
        d.refill(3, [7]);
        assert_eq!(&d[..], &[7]);
        d.refill(20, 0..20);
        assert_eq!(&d[..], &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(d.is_full());
        d.refill(0, [1]);
        assert!(d.is_empty());
        assert_eq!(format!("{d:?}"), "[]");
    }

    #[test]
    fn zero_capacity_refuses_everything() {
        let mut deck: Deck<u8, 0> = Deck::new(0);
        assert!(deck.is_full());
        assert_eq!(deck.insert(0, 1), Err(1));
        assert_eq!(deck.remove(0), None);
        assert!(deck.is_empty());
    }
}
