//! A decision node's record of one run, and the comparison of a replay against it.
//!
//! A decision node (the conference controller, a conductor) writes
//! `decisions/<node-id>.jsonl` in the session folder: a `setup` line with everything its
//! core was built from, then one `step` line per call of the core: the time passed in,
//! the input, and the decisions that call returned (each written as its `Debug` form,
//! which is what is compared).
//! A node restarted in the same run appends a new `setup` line; each setup starts a new
//! segment, replayed with a fresh core.
//!
//! No files here: text in, values out. Time is the core's own (nanoseconds since the
//! node started), so a replay passes exactly the times the run passed.

use serde::{Deserialize, Serialize, de::DeserializeOwned};

/// One line of a decision log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "snake_case")]
pub enum Line<S, I> {
    Setup {
        format: String,
        setup: S,
    },
    Step {
        at_ns: u64,
        input: I,
        decisions: Vec<String>,
    },
}

/// One recorded call of the core.
#[derive(Debug, Clone, PartialEq)]
pub struct Step<I> {
    pub at_ns: u64,
    pub input: I,
    pub decisions: Vec<String>,
}

/// A core's setup and the calls made to it until the next setup (or the end).
#[derive(Debug, Clone, PartialEq)]
pub struct Segment<S, I> {
    pub format: String,
    pub setup: S,
    pub steps: Vec<Step<I>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// A line this build cannot read; a log written by another build of the project
    /// may record inputs of another shape.
    #[error(
        "line {line}: {problem} (not a line this build writes: was the log recorded by another build?)"
    )]
    BadLine { line: usize, problem: String },
    #[error("line {0}: a step before any setup line")]
    StepBeforeSetup(usize),
}

/// The decisions of one output list, as recorded and compared.
pub fn decisions<O: std::fmt::Debug>(outputs: &[O]) -> Vec<String> {
    outputs.iter().map(|o| format!("{o:?}")).collect()
}

/// The JSON line (without newline) of a setup.
pub fn setup_line<S: Serialize>(format: &str, setup: &S) -> String {
    serde_json::to_string(&Line::<&S, ()>::Setup {
        format: format.to_owned(),
        setup,
    })
    .expect("a setup serialises")
}

/// The JSON line (without newline) of a step.
pub fn step_line<I: Serialize, O: std::fmt::Debug>(at_ns: u64, input: &I, outputs: &[O]) -> String {
    serde_json::to_string(&Line::<(), &I>::Step {
        at_ns,
        input,
        decisions: decisions(outputs),
    })
    .expect("an input serialises")
}

/// Reads a decision log. A last line cut short (the node was killed while writing it) is
/// left out; any other bad line is an error.
pub fn read<S: DeserializeOwned, I: DeserializeOwned>(
    text: &str,
) -> Result<Vec<Segment<S, I>>, LogError> {
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    let mut segments: Vec<Segment<S, I>> = Vec::new();
    for (n, line) in complete.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line<S, I> = serde_json::from_str(line).map_err(|e| LogError::BadLine {
            line: n + 1,
            problem: e.to_string(),
        })?;
        match parsed {
            Line::Setup { format, setup } => segments.push(Segment {
                format,
                setup,
                steps: Vec::new(),
            }),
            Line::Step {
                at_ns,
                input,
                decisions,
            } => segments
                .last_mut()
                .ok_or(LogError::StepBeforeSetup(n + 1))?
                .steps
                .push(Step {
                    at_ns,
                    input,
                    decisions,
                }),
        }
    }
    Ok(segments)
}

/// Where a replay first decided otherwise than the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The step (0-based, within its segment) whose decisions differ.
    pub step: usize,
    pub at_ns: u64,
    /// The input of that step, as recorded (JSON).
    pub input: String,
    pub recorded: Vec<String>,
    pub replayed: Vec<String>,
}

impl Difference {
    /// The first decision (0-based, within the step) that differs: where the recorded
    /// and the replayed lists part.
    pub fn first_decision(&self) -> usize {
        self.recorded
            .iter()
            .zip(&self.replayed)
            .take_while(|(a, b)| a == b)
            .count()
    }
}

/// What a replay of one segment found.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Steps replayed (up to and including the first difference).
    pub steps: usize,
    /// Decisions compared equal before the first difference.
    pub decisions: usize,
    /// The first step decided otherwise; comparing stops there (later inputs answered
    /// the recorded decisions, not the replayed ones).
    pub first_difference: Option<Difference>,
}

/// Feeds every recorded input to `core` at its recorded time and compares what it decides
/// with what was recorded.
pub fn compare<S, I: Serialize>(
    segment: &Segment<S, I>,
    mut core: impl FnMut(&I, u64) -> Vec<String>,
) -> Comparison {
    let mut decisions = 0;
    for (n, step) in segment.steps.iter().enumerate() {
        let replayed = core(&step.input, step.at_ns);
        if replayed != step.decisions {
            return Comparison {
                steps: n + 1,
                decisions,
                first_difference: Some(Difference {
                    step: n,
                    at_ns: step.at_ns,
                    input: serde_json::to_string(&step.input).unwrap_or_default(),
                    recorded: step.decisions.clone(),
                    replayed,
                }),
            };
        }
        decisions += replayed.len();
    }
    Comparison {
        steps: segment.steps.len(),
        decisions,
        first_difference: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A toy core: adds its input to a running sum; decides the sum when it passes `limit`.
    fn run(limit: i64, inputs: &[i64]) -> String {
        let mut log = setup_line("sum", &limit);
        log.push('\n');
        let mut sum = 0;
        for (i, x) in inputs.iter().enumerate() {
            sum += x;
            let outputs: Vec<i64> = if sum > limit { vec![sum] } else { vec![] };
            log.push_str(&step_line(i as u64 * 1_000, x, &outputs));
            log.push('\n');
        }
        log
    }

    fn replay(log: &str, limit: i64) -> Comparison {
        let segments: Vec<Segment<i64, i64>> = read(log).unwrap();
        assert_eq!(segments.len(), 1);
        let mut sum = 0;
        compare(&segments[0], |x, _| {
            sum += x;
            decisions(&if sum > limit { vec![sum] } else { vec![] })
        })
    }

    #[test]
    fn the_same_core_decides_the_same_and_another_shows_its_first_difference() {
        let log = run(5, &[1, 2, 3, 4]);
        let same = replay(&log, 5);
        assert_eq!(same.first_difference, None);
        assert_eq!((same.steps, same.decisions), (4, 2));
        let other = replay(&log, 2);
        assert_eq!((other.steps, other.decisions), (2, 0));
        let difference = other.first_difference.unwrap();
        assert_eq!(difference.step, 1);
        assert_eq!(difference.at_ns, 1_000);
        assert_eq!(difference.input, "2");
        assert_eq!(difference.recorded, Vec::<String>::new());
        assert_eq!(difference.replayed, ["3"]);
        assert_eq!(difference.first_decision(), 0);
    }

    #[test]
    fn a_torn_last_line_is_left_out_and_segments_restart() {
        let mut log = run(5, &[1, 2]);
        log.push_str(&run(0, &[7]));
        let segments: Vec<Segment<i64, i64>> = read(&log).unwrap();
        assert_eq!(segments.len(), 2);
        assert_eq!(segments[1].setup, 0);
        assert_eq!(segments[1].steps[0].decisions, ["7"]);
        let torn = format!("{log}{{\"line\":\"step\",\"at_");
        assert_eq!(read::<i64, i64>(&torn).unwrap(), segments);
        assert!(matches!(
            read::<i64, i64>("{\"line\":\"step\",\"at_ns\":1,\"input\":1,\"decisions\":[]}\n"),
            Err(LogError::StepBeforeSetup(1))
        ));
        let bad = read::<i64, i64>("not json\n").unwrap_err();
        assert!(matches!(bad, LogError::BadLine { line: 1, .. }));
        assert!(bad.to_string().contains("another build"), "{bad}");
    }

    proptest! {
        #[test]
        fn any_run_replays_to_zero_differences(limit in -10i64..50, inputs in prop::collection::vec(-5i64..10, 0..60)) {
            let log = run(limit, &inputs);
            prop_assert_eq!(replay(&log, limit).first_difference, None);
        }

        #[test]
        fn arbitrary_text_never_panics_the_reader(text in ".{0,400}") {
            let _ = read::<serde_json::Value, serde_json::Value>(&text);
        }
    }
}
