//! Property tests: the grammar round-trips and never panics; the engine keeps its
//! invariants under arbitrary conversations.

use proptest::prelude::*;
use turn_policy::{Participant, Policy, PolicyEngine, Weight};

fn name_strategy() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_\\-éß孙老师学生ａ]{1,8}"
}

fn weight_strategy() -> impl Strategy<Value = Weight> {
    prop_oneof![
        1 => Just(Weight::Priority),
        4 => (1e-12f64..1e18).prop_map(Weight::Ratio),
        2 => (1u32..100).prop_map(|w| Weight::Ratio(w as f64)),
    ]
}

fn unique(names: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .filter(|n| seen.insert(n.clone()))
        .collect()
}

fn policy_strategy() -> impl Strategy<Value = Policy> {
    let sequential = prop::collection::vec(name_strategy(), 2..8)
        .prop_map(unique)
        .prop_filter("two names at least", |n| n.len() >= 2)
        .prop_map(Policy::Sequential);
    let ratio = prop::collection::vec((name_strategy(), weight_strategy()), 1..8).prop_map(|v| {
        let mut seen = std::collections::HashSet::new();
        Policy::RatioPriority(
            v.into_iter()
                .filter(|(n, _)| seen.insert(n.clone()))
                .map(|(name, weight)| Participant { name, weight })
                .collect(),
        )
    });
    prop_oneof![sequential, ratio]
}

proptest! {
    #[test]
    fn display_round_trips(policy in policy_strategy()) {
        let text = policy.to_string();
        let parsed = Policy::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(parsed, policy);
    }

    #[test]
    fn parser_never_panics_on_arbitrary_strings(s in "\\PC{0,40}") {
        let _ = Policy::parse(&s);
    }

    #[test]
    fn parser_never_panics_on_grammar_soup(s in "[\\[\\]()→,*\\- >0-9.a-c孙eEnNiI\t\n]{0,30}") {
        match Policy::parse(&s) {
            Ok(policy) => {
                // Whatever parses, prints canonically and parses back the same.
                prop_assert_eq!(Policy::parse(&policy.to_string()).unwrap(), policy);
            }
            Err(e) => {
                // Every error points inside the pattern and renders a caret.
                prop_assert!(e.offset <= s.len());
                prop_assert!(s.is_char_boundary(e.offset));
                prop_assert!(e.to_string().ends_with('^'));
            }
        }
    }

    /// The next speaker foretold is the one the next turn goes to, and foretelling
    /// changes nothing, whatever was said before.
    #[test]
    fn the_next_turn_is_foretold_without_changing_anything(
        policy in policy_strategy(),
        words in prop::collection::vec(0u64..60, 1..60),
    ) {
        let mut e = PolicyEngine::new(policy, &[] as &[&str]);
        for w in words {
            let before = format!("{e:?}");
            let foretold = e.peek_next_turn();
            prop_assert_eq!(format!("{e:?}"), before);
            let next = e.next_turn();
            prop_assert_eq!(foretold, next);
            let Some(speaker) = next else { break };
            e.record_words(speaker, w);
            e.finish_turn();
        }
    }

    #[test]
    fn engine_invariants(
        policy in policy_strategy(),
        script in prop::collection::vec((0u8..10, 0u64..60), 1..300),
    ) {
        let names = policy.names().iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut e = PolicyEngine::new(policy, &[] as &[&str]);
        let mut last_speaker: Option<usize> = None;
        for (action, words) in script {
            if action == 0 {
                e.human_spoke("human", words);
                last_speaker = None;
                continue;
            }
            if action == 1 {
                // A participant goes silent, or comes back.
                let i = words as usize % names.len();
                let absent = !e.is_absent(i);
                e.set_absent(i, absent);
                continue;
            }
            match e.next_turn() {
                Some(sel) => {
                    prop_assert_ne!(Some(sel), last_speaker, "back to back");
                    prop_assert_ne!(names[sel].as_str(), "human");
                    prop_assert!(!e.is_absent(sel), "an absent participant was chosen");
                    e.record_words(sel, words);
                    e.finish_turn();
                    last_speaker = Some(sel);
                }
                None => {
                    // Only when no present non-human other than the last speaker exists.
                    let others = names.iter().enumerate()
                        .filter(|(i, n)| n.as_str() != "human" && !e.is_absent(*i) && Some(*i) != last_speaker)
                        .count();
                    prop_assert_eq!(others, 0);
                }
            }
        }
    }

    #[test]
    fn ratio_shares_converge(
        weights in prop::collection::vec(1u32..6, 3..6).prop_filter(
            // No back-to-back caps anyone at half of the turns; keep targets reachable.
            "every target below 45 %",
            |w| w.iter().all(|x| *x as f64 / w.iter().sum::<u32>() as f64 <= 0.45),
        ),
        seed in 0u64..1000,
    ) {
        let entries: Vec<Participant> = weights.iter().enumerate()
            .map(|(i, w)| Participant { name: format!("p{i}"), weight: Weight::Ratio(*w as f64) })
            .collect();
        let mut e = PolicyEngine::new(Policy::RatioPriority(entries), &[] as &[&str]);
        let mut x = seed;
        for _ in 0..3000 {
            let s = e.next_turn().unwrap();
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            e.record_words(s, 5 + (x >> 33) % 36);
            e.finish_turn();
        }
        let counts: Vec<u64> = (0..weights.len()).map(|i| e.word_count(i)).collect();
        let total: u64 = counts.iter().sum();
        let wsum: u32 = weights.iter().sum();
        for (i, w) in weights.iter().enumerate() {
            let target = *w as f64 / wsum as f64;
            let share = counts[i] as f64 / total as f64;
            prop_assert!((share - target).abs() < 0.02, "p{i}: {share} vs {target}");
        }
    }
}
