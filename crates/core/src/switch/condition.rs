//! When a declaration is on: a conjunction over switches, each allowing a set of its outcomes.
//! `build()` checks the graph of every shape with these, edge by edge, without listing the
//! shapes: a need is met when its providers' conditions cover its consumer's, two providers of
//! one key are duplicates when their conditions can hold together.

use std::fmt;

/// A switch's position in the builder's table of switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SwitchId(pub(crate) u32);

/// The outcomes of one switch a condition allows, a bit each (a switch has at most 64).
pub(crate) type Outcomes = u64;

/// The mask of every outcome of a switch of `count` outcomes.
pub(crate) fn every(count: usize) -> Outcomes {
    debug_assert!((1..=64).contains(&count));
    if count >= 64 {
        u64::MAX
    } else {
        (1 << count) - 1
    }
}

/// A conjunction: for each switch it names (in order, once), the outcomes it is on for; never
/// none of them, never all. Empty: on in every shape, as nearly every declaration is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Condition {
    terms: Vec<(SwitchId, Outcomes)>,
}

impl Condition {
    /// On in every shape.
    pub(crate) const ALWAYS: Condition = Condition { terms: Vec::new() };

    /// On when `switch` (of `count` outcomes) is one of `outcomes`; `None` when that is none.
    pub(crate) fn of(switch: SwitchId, outcomes: Outcomes, count: usize) -> Option<Condition> {
        let outcomes = outcomes & every(count);
        match outcomes {
            0 => None,
            o if o == every(count) => Some(Condition::ALWAYS),
            o => Some(Condition {
                terms: vec![(switch, o)],
            }),
        }
    }

    /// Whether it holds in every shape.
    #[inline]
    pub(crate) fn is_always(&self) -> bool {
        self.terms.is_empty()
    }

    /// The terms, by switch.
    pub(crate) fn terms(&self) -> &[(SwitchId, Outcomes)] {
        &self.terms
    }

    /// The outcomes of `switch` it allows (`None`: every one).
    pub(crate) fn allowed(&self, switch: SwitchId) -> Option<Outcomes> {
        self.terms
            .binary_search_by_key(&switch, |(s, _)| *s)
            .ok()
            .map(|i| self.terms[i].1)
    }

    /// Both at once: `None` when they cannot hold together.
    pub(crate) fn and(&self, other: &Condition) -> Option<Condition> {
        if other.is_always() {
            return Some(self.clone());
        }
        if self.is_always() {
            return Some(other.clone());
        }
        let mut terms = Vec::with_capacity(self.terms.len() + other.terms.len());
        let (mut a, mut b) = (self.terms.iter().peekable(), other.terms.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&(sa, oa)), Some(&&(sb, ob))) => match sa.cmp(&sb) {
                    std::cmp::Ordering::Less => {
                        a.next();
                        (sa, oa)
                    }
                    std::cmp::Ordering::Greater => {
                        b.next();
                        (sb, ob)
                    }
                    std::cmp::Ordering::Equal => {
                        a.next();
                        b.next();
                        (sa, oa & ob)
                    }
                },
                (Some(&&term), None) => {
                    a.next();
                    term
                }
                (None, Some(&&term)) => {
                    b.next();
                    term
                }
                (None, None) => break,
            };
            if next.1 == 0 {
                return None;
            }
            terms.push(next);
        }
        Some(Condition { terms })
    }

    /// Whether both can hold in one shape.
    pub(crate) fn overlaps(&self, other: &Condition) -> bool {
        // Two sorted lists: a switch both name must allow an outcome in common.
        let mut b = other.terms.iter().peekable();
        for &(switch, outcomes) in &self.terms {
            while b.next_if(|(s, _)| *s < switch).is_some() {}
            if let Some(&&(s, o)) = b.peek()
                && s == switch
                && o & outcomes == 0
            {
                return false;
            }
        }
        true
    }

    /// Whether it holds in every shape where `other` holds.
    pub(crate) fn contains(&self, other: &Condition) -> bool {
        self.terms
            .iter()
            .all(|&(switch, outcomes)| match other.allowed(switch) {
                Some(o) => o & !outcomes == 0,
                None => false,
            })
    }

    /// It, with `switch` allowed only `outcomes` (which `self` allows some of).
    fn narrowed(&self, switch: SwitchId, outcomes: Outcomes) -> Condition {
        let mut terms = self.terms.clone();
        match terms.binary_search_by_key(&switch, |(s, _)| *s) {
            Ok(i) => terms[i].1 &= outcomes,
            Err(i) => terms.insert(i, (switch, outcomes)),
        }
        Condition { terms }
    }

    /// Some shapes where `self` holds and none of `cover` does, as one condition, or `None`
    /// when `cover` holds wherever `self` does. `count` gives each switch's outcomes.
    ///
    /// Splits `self` on the switches the covering conditions name, one at a time: as many
    /// steps as those conditions leave uncovered pieces, which for the few alternatives a key
    /// has is a handful, not the shapes of every switch.
    pub(crate) fn uncovered<'a>(
        &self,
        cover: impl IntoIterator<Item = &'a Condition>,
        count: &impl Fn(SwitchId) -> usize,
    ) -> Option<Condition> {
        let relevant: Vec<&Condition> = cover.into_iter().filter(|c| c.overlaps(self)).collect();
        self.uncovered_by(&relevant, count)
    }

    fn uncovered_by(
        &self,
        cover: &[&Condition],
        count: &impl Fn(SwitchId) -> usize,
    ) -> Option<Condition> {
        let Some((first, rest)) = cover.split_first() else {
            return Some(self.clone());
        };
        if first.contains(self) {
            return None;
        }
        // A switch on which `first` allows less than `self`: the piece of `self` outside it is
        // not covered by `first`, the piece inside it may be, by `first` with the others.
        let (switch, allowed) = first
            .terms
            .iter()
            .copied()
            .find(|&(s, o)| {
                let mine = self.allowed(s).unwrap_or_else(|| every(count(s)));
                mine & !o != 0
            })
            .expect("a condition that does not contain another narrows one of its switches");
        let mine = self.allowed(switch).unwrap_or_else(|| every(count(switch)));
        let outside = self.narrowed(switch, mine & !allowed);
        let rest_outside: Vec<&Condition> = rest
            .iter()
            .copied()
            .filter(|c| c.overlaps(&outside))
            .collect();
        if let Some(piece) = outside.uncovered_by(&rest_outside, count) {
            return Some(piece);
        }
        let inside = self.narrowed(switch, mine & allowed);
        let others: Vec<&Condition> = cover
            .iter()
            .copied()
            .filter(|c| c.overlaps(&inside))
            .collect();
        // Each piece allows fewer outcomes of `switch` than `self`: the search ends, in
        // whatever order the cover comes.
        inside.uncovered_by(&others, count)
    }

    /// Every shape where it holds, written for a sentence: ``when `cacheOn` = false and
    /// `gateway` = stripe or paypal``; `outcome` names an outcome of a switch.
    pub(crate) fn display<'a>(
        &'a self,
        name: &'a dyn Fn(SwitchId) -> &'a str,
        outcome: &'a dyn Fn(SwitchId, u32) -> &'a str,
    ) -> impl fmt::Display + 'a {
        Shapes {
            condition: self,
            name,
            outcome,
        }
    }
}

struct Shapes<'a> {
    condition: &'a Condition,
    name: &'a dyn Fn(SwitchId) -> &'a str,
    outcome: &'a dyn Fn(SwitchId, u32) -> &'a str,
}

impl fmt::Display for Shapes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.condition.is_always() {
            return f.write_str("always");
        }
        f.write_str("when ")?;
        for (i, &(switch, outcomes)) in self.condition.terms.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "`{}` = ", (self.name)(switch))?;
            let mut bits = outcomes;
            let mut first = true;
            while bits != 0 {
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                if !first {
                    f.write_str(" or ")?;
                }
                first = false;
                f.write_str((self.outcome)(switch, bit))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: SwitchId = SwitchId(0);
    const B: SwitchId = SwitchId(1);
    const C: SwitchId = SwitchId(2);

    /// Switch `A` and `B` have two outcomes (false, true), `C` three.
    fn count(s: SwitchId) -> usize {
        if s == C { 3 } else { 2 }
    }

    fn on(s: SwitchId, outcomes: Outcomes) -> Condition {
        Condition::of(s, outcomes, count(s)).unwrap()
    }

    fn shapes() -> Vec<[u32; 3]> {
        let mut all = Vec::new();
        for a in 0..2 {
            for b in 0..2 {
                for c in 0..3 {
                    all.push([a, b, c]);
                }
            }
        }
        all
    }

    fn holds(cond: &Condition, shape: [u32; 3]) -> bool {
        cond.terms
            .iter()
            .all(|&(s, o)| o & (1 << shape[s.0 as usize]) != 0)
    }

    /// Every condition over the three switches: each allowing a non-empty set of outcomes.
    fn conditions() -> Vec<Condition> {
        let mut all = Vec::new();
        for a in 1..4u64 {
            for b in 1..4u64 {
                for c in 1..8u64 {
                    let mut cond = Condition::ALWAYS;
                    for (s, o) in [(A, a), (B, b), (C, c)] {
                        cond = cond.and(&on(s, o)).unwrap();
                    }
                    all.push(cond);
                }
            }
        }
        all
    }

    #[test]
    fn a_condition_of_every_outcome_is_always() {
        assert!(on(A, 0b11).is_always());
        assert_eq!(Condition::of(C, 0, 3), None);
        assert_eq!(on(C, 0b1111), Condition::ALWAYS);
    }

    #[test]
    fn and_overlaps_and_contains_agree_with_the_shapes() {
        let conditions = conditions();
        for x in &conditions {
            for y in &conditions {
                let both = x.and(y);
                let together: Vec<_> = shapes()
                    .into_iter()
                    .filter(|&s| holds(x, s) && holds(y, s))
                    .collect();
                assert_eq!(both.is_some(), !together.is_empty(), "{x:?} and {y:?}");
                assert_eq!(x.overlaps(y), !together.is_empty(), "{x:?} overlaps {y:?}");
                if let Some(both) = both {
                    for s in shapes() {
                        assert_eq!(holds(&both, s), holds(x, s) && holds(y, s));
                    }
                }
                let contains = shapes().into_iter().all(|s| !holds(y, s) || holds(x, s));
                assert_eq!(x.contains(y), contains, "{x:?} contains {y:?}");
            }
        }
    }

    #[test]
    fn uncovered_finds_a_shape_exactly_when_one_is_left() {
        let conditions = conditions();
        // Every consumer against every pair and a few triples of providers.
        for consumer in conditions.iter().step_by(3) {
            for (i, p) in conditions.iter().enumerate().step_by(2) {
                for q in conditions.iter().skip(i % 7).step_by(5) {
                    let r = &conditions[(i * 13) % conditions.len()];
                    for cover in [vec![p], vec![p, q], vec![p, q, r]] {
                        let left = consumer.uncovered(cover.iter().copied(), &count);
                        let expected = shapes()
                            .into_iter()
                            .any(|s| holds(consumer, s) && !cover.iter().any(|c| holds(c, s)));
                        assert_eq!(left.is_some(), expected, "{consumer:?} by {cover:?}");
                        if let Some(left) = left {
                            // The piece is inside the consumer's shapes and in none of the cover's.
                            assert!(consumer.contains(&left));
                            for s in shapes().into_iter().filter(|&s| holds(&left, s)) {
                                assert!(!cover.iter().any(|c| holds(c, s)), "{left:?}");
                            }
                            assert!(shapes().into_iter().any(|s| holds(&left, s)));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn alternatives_of_one_switch_cover_it() {
        let (off, on_) = (on(A, 0b01), on(A, 0b10));
        assert_eq!(Condition::ALWAYS.uncovered([&off, &on_], &count), None);
        assert_eq!(
            Condition::ALWAYS.uncovered([&on_], &count),
            Some(off.clone())
        );
        let stripe_or_fake = [&on(C, 0b001), &on(C, 0b010)];
        assert_eq!(
            Condition::ALWAYS.uncovered(stripe_or_fake, &count),
            Some(on(C, 0b100))
        );
    }

    #[test]
    fn a_shape_reads_as_a_sentence() {
        let names = |s: SwitchId| ["cacheOn", "fast", "gateway"][s.0 as usize];
        let outcomes = |s: SwitchId, o: u32| {
            if s == C {
                ["stripe", "paypal", "fake"][o as usize]
            } else {
                ["false", "true"][o as usize]
            }
        };
        let cond = on(A, 0b01).and(&on(C, 0b011)).unwrap();
        assert_eq!(
            cond.display(&names, &outcomes).to_string(),
            "when `cacheOn` = false and `gateway` = stripe or paypal"
        );
        assert_eq!(
            Condition::ALWAYS.display(&names, &outcomes).to_string(),
            "always"
        );
    }
}
