//! Talk share against target, from the controller's `status` JSON.
//!
//! The share counts the words of ratio participants since the last reset (the policy's
//! `total_words`); the target is the participant's weight over the sum of the ratio
//! weights (humans included, priority participants, `*`, excluded: they have no target).

use serde::Serialize;
use voice_protocol::messages::{PolicyStatus, Share};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bar {
    pub name: String,
    pub words: u64,
    /// 0..=1 of the ratio participants' words (0 while nobody has spoken).
    pub share: f64,
    /// 0..=1; `None` for a priority participant.
    pub target: Option<f64>,
    pub priority: bool,
    pub absent: bool,
}

/// The policy's view from one `status` message: its state and the share bars.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StatusView {
    pub mode: String,
    pub cycle: u64,
    pub current_speaker: Option<String>,
    pub last_speaker: Option<String>,
    pub question_id: Option<u64>,
    pub bars: Vec<Bar>,
}

/// Reads a `status` JSON; `Err` names what is wrong.
pub fn parse_status(json: &str) -> Result<StatusView, String> {
    let status = PolicyStatus::parse(json).map_err(|e| e.to_string())?;
    Ok(view(status))
}

/// The bars of `status`: a weight that is no positive ratio is left out (as if the
/// participant had a ratio of one), a participant without a weight has one.
fn view(status: PolicyStatus) -> StatusView {
    // name → Some(ratio) | None (priority)
    let weights: Vec<(String, Option<f64>)> = status
        .weights
        .iter()
        .filter_map(|entry| match entry.weight {
            Share::Priority => Some((entry.name.clone(), None)),
            Share::Ratio(w) if w.is_finite() && w > 0.0 => Some((entry.name.clone(), Some(w))),
            Share::Ratio(_) => None,
        })
        .collect();
    let names: Vec<String> = if status.participants.is_empty() {
        weights.iter().map(|(n, _)| n.clone()).collect()
    } else {
        status.participants.clone()
    };
    let words_of = |name: &str| status.word_counts.get(name).unwrap_or(0);
    let weight_of = |name: &str| {
        weights
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Some(1.0), |(_, w)| *w)
    };
    let total_ratio: f64 = names.iter().filter_map(|n| weight_of(n)).sum();
    let total_words: u64 = names
        .iter()
        .filter(|n| weight_of(n).is_some())
        .map(|n| words_of(n))
        .fold(0u64, u64::saturating_add);
    let bars = names
        .iter()
        .map(|name| {
            let weight = weight_of(name);
            let words = words_of(name);
            Bar {
                name: name.clone(),
                words,
                share: if weight.is_some() && total_words > 0 {
                    words as f64 / total_words as f64
                } else {
                    0.0
                },
                target: weight
                    .filter(|_| total_ratio > 0.0)
                    .map(|w| w / total_ratio),
                priority: weight.is_none(),
                absent: status.absent.contains(name),
            }
        })
        .collect();
    StatusView {
        mode: status.mode,
        cycle: status.cycle,
        current_speaker: status.current_speaker,
        last_speaker: status.last_speaker,
        question_id: status.question_id,
        bars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATUS: &str = r#"{"mode":"ratio_priority","participants":["human","tutor","student1","student2"],
        "weights":[{"name":"human","weight":0.001},{"name":"tutor","weight":"*"},{"name":"student1","weight":1.0},{"name":"student2","weight":1.0}],
        "word_counts":{"human":0,"tutor":40,"student1":30,"student2":10},"cycle":3,"current_speaker":"student2",
        "last_speaker":"student1","question_id":12,"absent":["student2"]}"#;

    #[test]
    fn shares_and_targets_follow_the_policy_rule() {
        let s = parse_status(STATUS).unwrap();
        assert_eq!(s.mode, "ratio_priority");
        assert_eq!(s.cycle, 3);
        assert_eq!(s.current_speaker.as_deref(), Some("student2"));
        assert_eq!(s.question_id, Some(12));
        let bar = |n: &str| s.bars.iter().find(|b| b.name == n).unwrap().clone();
        assert_eq!(bar("tutor").target, None);
        assert!(bar("tutor").priority);
        assert_eq!(
            bar("tutor").share,
            0.0,
            "priority words are not in the total"
        );
        assert!((bar("student1").share - 0.75).abs() < 1e-9);
        assert!((bar("student2").share - 0.25).abs() < 1e-9);
        assert!((bar("student1").target.unwrap() - 1.0 / 2.001).abs() < 1e-9);
        assert!(bar("student2").absent);
        assert_eq!(bar("student1").words, 30);
    }

    #[test]
    fn sequential_status_gets_equal_targets() {
        let s = parse_status(
            r#"{"mode":"sequential","participants":["a","b"],"weights":[{"name":"a","weight":1.0},{"name":"b","weight":1.0}],"word_counts":{"a":0,"b":0},"cycle":0}"#,
        )
        .unwrap();
        assert_eq!(s.bars[0].target, Some(0.5));
        assert_eq!(s.bars[0].share, 0.0);
    }

    #[test]
    fn bad_status_is_an_error_not_a_panic() {
        assert!(parse_status("").is_err());
        assert!(parse_status("[1]").is_err());
        // Not the controller's shape: an error, never a guess.
        assert!(parse_status(r#"{"weights":[{"weight":-1}],"word_counts":7}"#).is_err());
        // A ratio that is no positive number is left out: the participant counts as one.
        let s = parse_status(
            r#"{"participants":["a","b"],"weights":[{"name":"a","weight":-1},{"name":"b","weight":1.0}],"word_counts":{"a":2,"b":2}}"#,
        )
        .unwrap();
        assert_eq!(s.bars[0].target, Some(0.5));
    }
}
