//! What an hour of conversation must leave behind: every node's memory flat after
//! warm-up (within ±10 % of its median), its threads and file handles flat, no stall
//! (no gap of more than five seconds in which the conversation made no progress at
//! all), and complete session files.
//!
//! Pure analysis of samples and session lines; `main.rs` reads `/proc` and the files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How far after warm-up a node's resident memory may stray from its median.
pub const RSS_TOLERANCE: f64 = 0.10;
/// The longest the conversation may go without any progress.
pub const MAX_STALL_MS: u64 = 5_000;

/// One node process, sampled once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Minutes since sampling began.
    pub minute: u64,
    pub node: String,
    pub pid: u32,
    pub rss_kib: u64,
    /// Proportional set size: pages shared with other processes (the model files every
    /// bridge maps) count by their share.
    #[serde(default)]
    pub pss_kib: u64,
    /// CPU time used since the process started (user and system).
    #[serde(default)]
    pub cpu_ms: u64,
    pub threads: u64,
    pub fds: u64,
}

/// A node's figures after warm-up.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeReport {
    pub node: String,
    pub samples: usize,
    pub rss_median_kib: u64,
    pub rss_min_kib: u64,
    pub rss_max_kib: u64,
    pub threads: (u64, u64),
    pub fds: (u64, u64),
    /// Different process ids seen: a restart shows as more than one.
    pub pids: usize,
    pub pss_max_kib: u64,
    /// CPU time used per second of wall time between its first and last sample (1.0 is
    /// one core busy), or `None` with fewer than two samples.
    pub cpu_share: Option<f64>,
}

impl NodeReport {
    /// The largest deviation from the median, as a fraction of it.
    pub fn rss_spread(&self) -> f64 {
        if self.rss_median_kib == 0 {
            return 0.0;
        }
        let median = self.rss_median_kib as f64;
        ((self.rss_max_kib as f64 - median).max(median - self.rss_min_kib as f64)) / median
    }

    pub fn rss_flat(&self) -> bool {
        self.rss_spread() <= RSS_TOLERANCE
    }

    /// Threads and file handles may move by a few (a worker per request, a socket per
    /// connection), not grow with the hour.
    pub fn handles_flat(&self) -> bool {
        self.threads.1 - self.threads.0 <= 4 && self.fds.1 - self.fds.0 <= 8
    }
}

/// Per-node figures of the samples taken at or after `warmup_minutes`.
pub fn nodes(samples: &[Sample], warmup_minutes: u64) -> Vec<NodeReport> {
    let mut by_node: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.minute >= warmup_minutes) {
        by_node.entry(&s.node).or_default().push(s);
    }
    by_node
        .into_iter()
        .map(|(node, list)| {
            let mut rss: Vec<u64> = list.iter().map(|s| s.rss_kib).collect();
            rss.sort_unstable();
            let range = |f: fn(&Sample) -> u64| {
                let values = list.iter().map(|s| f(s));
                (values.clone().min().unwrap_or(0), values.max().unwrap_or(0))
            };
            let mut pids: Vec<u32> = list.iter().map(|s| s.pid).collect();
            pids.sort_unstable();
            pids.dedup();
            let (first, last) = (list[0], list[list.len() - 1]);
            let wall_ms = (last.minute - first.minute) * 60_000;
            let cpu_share = (pids.len() == 1 && wall_ms > 0)
                .then(|| last.cpu_ms.saturating_sub(first.cpu_ms) as f64 / wall_ms as f64);
            NodeReport {
                node: node.to_owned(),
                samples: list.len(),
                rss_median_kib: rss[rss.len() / 2],
                rss_min_kib: rss[0],
                rss_max_kib: rss[rss.len() - 1],
                threads: range(|s| s.threads),
                fds: range(|s| s.fds),
                pids: pids.len(),
                pss_max_kib: range(|s| s.pss_kib).1,
                cpu_share,
            }
        })
        .collect()
}

/// The gaps longer than [`MAX_STALL_MS`] between consecutive moments of progress
/// (session times in ms, any order): `(from_ms, to_ms)`.
pub fn stalls(mut progress_ms: Vec<u64>, end_ms: u64) -> Vec<(u64, u64)> {
    progress_ms.push(end_ms);
    progress_ms.sort_unstable();
    progress_ms
        .windows(2)
        .filter(|w| w[1] - w[0] > MAX_STALL_MS)
        .map(|w| (w[0], w[1]))
        .collect()
}

/// A script for the simulated human: a line every `every_secs` (± a fifth, seeded)
/// for `minutes`, questions and nods in turn.
pub fn human_script(minutes: u64, every_secs: u64, seed: u64) -> String {
    const LINES: [&str; 8] = [
        "Sorry, can you give me an example with numbers?",
        "Mm-hmm.",
        "Why is the derivative of x squared two x?",
        "Okay, and what does the slope tell us?",
        "Yeah.",
        "Can you explain the chain rule again, slowly?",
        "What is the derivative of a constant?",
        "Right, so how do we find a tangent line?",
    ];
    let mut state = seed.max(1);
    let mut next = || {
        // xorshift64: enough to spread the lines, reproducible from the seed.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let jitter = (every_secs / 5).max(1);
    let mut out = String::from("# Generated by `soak script`: the soak's human.\n");
    let mut at = every_secs;
    let mut i = 0;
    while at < minutes * 60 {
        let line = LINES[i % LINES.len()];
        out.push_str(&format!("- at_secs: {at}\n  text: \"{line}\"\n"));
        i += 1;
        at += every_secs - jitter + next() % (2 * jitter + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(minute: u64, node: &str, pid: u32, rss_kib: u64, threads: u64, fds: u64) -> Sample {
        Sample {
            minute,
            node: node.into(),
            pid,
            rss_kib,
            pss_kib: rss_kib / 2,
            cpu_ms: minute * 30_000,
            threads,
            fds,
        }
    }

    #[test]
    fn warm_up_is_left_out_and_growth_after_it_is_caught() {
        let mut samples = vec![s(0, "tutor", 1, 10_000, 3, 10)];
        for minute in 1..=10 {
            samples.push(s(minute, "tutor", 1, 100_000 + minute, 5, 12));
            samples.push(s(
                minute,
                "player",
                2,
                50_000 + minute * 2_000,
                5,
                12 + minute,
            ));
        }
        let report = nodes(&samples, 1);
        let player = &report[0];
        let tutor = &report[1];
        assert_eq!(tutor.samples, 10);
        assert!(tutor.rss_flat() && tutor.handles_flat(), "{tutor:?}");
        assert!(!player.rss_flat(), "{player:?}");
        assert!(!player.handles_flat(), "{player:?}");
        // Half a core: 30 s of CPU each minute.
        assert_eq!(tutor.cpu_share, Some(0.5));
        assert_eq!(tutor.pss_max_kib, 50_005);
    }

    #[test]
    fn a_restart_shows_as_a_second_pid() {
        let report = nodes(&[s(2, "asr", 7, 1, 1, 1), s(3, "asr", 9, 1, 1, 1)], 0);
        assert_eq!(report[0].pids, 2);
        // Two processes' CPU times do not subtract.
        assert_eq!(report[0].cpu_share, None);
    }

    #[test]
    fn a_stall_is_a_quiet_gap_longer_than_five_seconds() {
        assert!(stalls(vec![0, 4_000, 9_000, 14_000], 19_000).is_empty());
        assert_eq!(stalls(vec![4_000, 0, 20_000], 21_000), [(4_000, 20_000)]);
        // Quiet at the end counts too.
        assert_eq!(stalls(vec![0], 6_000), [(0, 6_000)]);
    }

    #[test]
    fn the_script_is_valid_and_spans_the_time() {
        let script = human_script(60, 30, 7);
        let lines: Vec<serde_yaml::Value> = serde_yaml::from_str(&script).unwrap();
        assert!((100..=140).contains(&lines.len()), "{}", lines.len());
        let last = lines.last().unwrap()["at_secs"].as_u64().unwrap();
        assert!(last < 3600 && last > 3500);
        assert_eq!(human_script(60, 30, 7), script);
    }

    proptest::proptest! {
        #[test]
        fn constant_figures_are_flat(rss in 1u64..10_000_000, minutes in 1u64..100) {
            let samples: Vec<Sample> = (0..minutes).map(|m| s(m, "n", 1, rss, 4, 9)).collect();
            let report = nodes(&samples, 0);
            proptest::prop_assert!(report[0].rss_flat() && report[0].handles_flat());
        }
    }
}
