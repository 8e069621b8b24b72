//! The turn-taking engine: given what has been said so far, who speaks next.
//!
//! # Selection
//!
//! **Sequential** (`A → B → C`): round robin in pattern order; a complete pass over the
//! selectable participants increments `cycle`.
//!
//! **Ratio/priority** (`(A, *), (B, 2), C`), in this order:
//! 1. *Priority*: unless this is the cold start, if the last speaker was not a priority
//!    participant, a priority participant speaks next. With several priority participants
//!    the one who spoke least recently goes first (ties: pattern order), so they take turns
//!    instead of answering each other forever.
//! 2. *Ratio*: among the ratio participants who did not just speak, the one with the
//!    highest `ratio_difference` is chosen (ties: pattern order), where
//!
//!    ```text
//!    ideal_words      = (ratio / total_ratio) × total_words
//!    ratio_difference = (ideal_words − actual_words) / ratio
//!    ```
//!
//!    `total_ratio` is the sum of the ratio weights (humans included, priority
//!    participants excluded) and `total_words` the words spoken by ratio participants
//!    since the last reset. Dividing by the ratio makes the choice "lowest words per unit
//!    of weight", which converges to the target shares for any utterance lengths.
//! 3. If no ratio participant can speak (all are human, or the only one just spoke), a
//!    priority participant who did not just speak is chosen; if there is none either, the
//!    floor is open and nobody is handed the turn until a human speaks.
//!
//! **Humans** (the name `human` plus any names configured as human) are never handed the
//! turn: they take the floor by speaking. They still count in `total_ratio`, as the spec
//! says, but the formula above divided by `(human, 0.001)` would otherwise pick the human
//! almost every time.
//!
//! **Cold start**: at the very start (nobody has spoken), priority is skipped. After a
//! human speaks, `last_speaker` is the human, so a priority participant answers first.
//!
//! **No back-to-back**: the last speaker is never chosen again.
//!
//! **Absent participants** (marked by the controller when one times out or its input
//! closes) are skipped by every rule, and a round is complete without them, until they
//! are marked present again.
//!
//! The engine is deterministic, allocation-free on the decision path and reads no clock.

use crate::grammar::{Policy, Weight};

/// The name that is always treated as a human participant.
pub const HUMAN: &str = "human";

/// Who spoke last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LastSpeaker {
    /// Nobody yet: the next selection is a cold start.
    Nobody,
    /// A human (named; may or may not be in the pattern).
    Human(String),
    /// A participant of the pattern, by index.
    Participant(usize),
}

/// The participants as the policy names them: each one's name, whether it has
/// priority, its ratio weight (and their sum), and whether it is a human.
#[derive(Debug, Clone)]
struct Roster {
    names: Vec<String>,
    priority: Vec<bool>,
    ratio: Vec<f64>,
    human: Vec<bool>,
    total_ratio: f64,
}

impl Roster {
    /// `policy`'s participants; [`HUMAN`] and `extra_humans` are humans.
    fn new<S: AsRef<str>>(policy: &Policy, extra_humans: &[S]) -> Self {
        let names: Vec<String> = policy.names().into_iter().map(str::to_owned).collect();
        let n = names.len();
        let human: Vec<bool> = names
            .iter()
            .map(|name| name == HUMAN || extra_humans.iter().any(|h| h.as_ref() == name))
            .collect();
        let (priority, ratio): (Vec<bool>, Vec<f64>) = match policy {
            Policy::Sequential(_) => (vec![false; n], vec![1.0; n]),
            Policy::RatioPriority(entries) => entries
                .iter()
                .map(|p| match p.weight {
                    Weight::Priority => (true, 0.0),
                    Weight::Ratio(w) => (false, w),
                })
                .unzip(),
        };
        let total_ratio = ratio.iter().sum();
        Self {
            names,
            priority,
            ratio,
            human,
            total_ratio,
        }
    }
}

/// The policy state and selection algorithm.
#[derive(Debug, Clone)]
pub struct PolicyEngine {
    policy: Policy,
    /// Who takes part, as the policy names them, and how each is weighted.
    roster: Roster,
    absent: Vec<bool>,
    word_counts: Vec<u64>,
    ratio_words: u64,
    last_turn: Vec<u64>,
    round_spoken: Vec<bool>,
    last_speaker: LastSpeaker,
    current_speaker: Option<usize>,
    position: usize,
    cycle: u64,
    turns: u64,
}

impl PolicyEngine {
    /// Builds an engine; `extra_humans` are names treated as human besides `human`.
    pub fn new<S: AsRef<str>>(policy: Policy, extra_humans: &[S]) -> Self {
        let roster = Roster::new(&policy, extra_humans);
        let n = roster.names.len();
        Self {
            policy,
            roster,
            absent: vec![false; n],
            word_counts: vec![0; n],
            ratio_words: 0,
            last_turn: vec![0; n],
            round_spoken: vec![false; n],
            last_speaker: LastSpeaker::Nobody,
            current_speaker: None,
            position: 0,
            cycle: 0,
            turns: 0,
        }
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Participant names in pattern order.
    pub fn names(&self) -> &[String] {
        &self.roster.names
    }

    pub fn name(&self, index: usize) -> &str {
        &self.roster.names[index]
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.roster.names.iter().position(|n| n == name)
    }

    /// Whether `name` is a human: `human`, a configured human, or a human pattern entry.
    pub fn is_human_name(&self, name: &str) -> bool {
        name == HUMAN || self.index_of(name).is_some_and(|i| self.roster.human[i])
    }

    pub fn is_human(&self, index: usize) -> bool {
        self.roster.human[index]
    }

    /// Whether the pattern can work: who can ever be handed the turn.
    pub fn viability(&self) -> Viability {
        let mut agents = (0..self.roster.names.len()).filter(|i| !self.roster.human[*i]);
        match (agents.next(), agents.next()) {
            (None, _) => Viability::NoTurns,
            (Some(only), None) => Viability::OneSpeaker(self.roster.names[only].clone()),
            (Some(_), Some(_)) => Viability::Conversation,
        }
    }

    /// Marks participant `index` absent (skipped) or present again; returns whether that
    /// changed anything.
    pub fn set_absent(&mut self, index: usize, absent: bool) -> bool {
        let changed = self.absent[index] != absent;
        self.absent[index] = absent;
        changed
    }

    pub fn is_absent(&self, index: usize) -> bool {
        self.absent[index]
    }

    /// Whether no participant can be handed a turn now (all human or absent).
    pub fn nobody_eligible(&self) -> bool {
        !(0..self.roster.names.len()).any(|i| self.eligible(i))
    }

    /// Whether participant `index` may be handed a turn at all.
    fn eligible(&self, index: usize) -> bool {
        !self.roster.human[index] && !self.absent[index]
    }

    pub fn last_speaker(&self) -> &LastSpeaker {
        &self.last_speaker
    }

    /// The participant currently holding the turn, if any.
    pub fn current_speaker(&self) -> Option<usize> {
        self.current_speaker
    }

    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    pub fn word_count(&self, index: usize) -> u64 {
        self.word_counts[index]
    }

    /// Decides who speaks next (by index) and counts it as their turn. `None` means the
    /// floor is open: only a human can continue the conversation. The turn's question id
    /// is the controller's to give.
    pub fn next_turn(&mut self) -> Option<usize> {
        let index = match self.policy {
            Policy::Sequential(_) => self.select_sequential()?,
            Policy::RatioPriority(_) => self.select_ratio_priority()?,
        };
        self.turns += 1;
        self.last_turn[index] = self.turns;
        self.last_speaker = LastSpeaker::Participant(index);
        self.current_speaker = Some(index);
        self.mark_spoken(index);
        Some(index)
    }

    /// Adds words spoken by participant `index` (count each streamed chunk once).
    pub fn record_words(&mut self, index: usize, words: u64) {
        self.word_counts[index] += words;
        if !self.roster.priority[index] {
            self.ratio_words += words;
        }
    }

    /// The current speaker's turn is over (its last chunk arrived, or it was skipped).
    pub fn finish_turn(&mut self) {
        self.current_speaker = None;
    }

    /// A human spoke: word counts and round tracking restart, `last_speaker` becomes the
    /// human (so priority answers first, not a cold start).
    pub fn human_spoke(&mut self, name: &str, words: u64) {
        self.clear_rounds();
        self.last_speaker = LastSpeaker::Human(name.to_owned());
        if let Some(i) = self.index_of(name) {
            self.record_words(i, words);
        }
    }

    /// Who would answer if the human `name` finished speaking now (the turn in progress
    /// cut short): decided on a copy, nothing changes. Lets an answer be prepared while
    /// the human is still talking.
    pub fn answerer_if_human_spoke(&self, name: &str) -> Option<usize> {
        let mut after = self.clone();
        after.finish_turn();
        after.human_spoke(name, 0);
        after.next_turn()
    }

    /// Who would be handed the next turn if it were handed now: decided on a copy,
    /// nothing changes. Lets the next speaker read its turn ahead while the voice catches
    /// up with the lines already written.
    pub fn peek_next_turn(&self) -> Option<usize> {
        self.clone().next_turn()
    }

    /// Back to the very beginning (cold start).
    pub fn reset(&mut self) {
        self.clear_rounds();
        self.last_speaker = LastSpeaker::Nobody;
        self.last_turn.fill(0);
        self.turns = 0;
    }

    /// The spec's `ratio_difference` of participant `index` (priority: `None`).
    pub fn ratio_difference(&self, index: usize) -> Option<f64> {
        if self.roster.priority[index] {
            return None;
        }
        let ratio = self.roster.ratio[index];
        let ideal = ratio / self.roster.total_ratio * self.ratio_words as f64;
        Some((ideal - self.word_counts[index] as f64) / ratio)
    }

    /// The published status; `question_id` is the conversation's newest, which the
    /// controller hands out (the policy only says who speaks).
    pub fn stats(&self, question_id: u64) -> PolicyStats {
        let weights = match &self.policy {
            Policy::Sequential(names) => names
                .iter()
                .map(|name| WeightEntry {
                    name: name.clone(),
                    weight: Weight::Ratio(1.0),
                })
                .collect(),
            Policy::RatioPriority(entries) => entries
                .iter()
                .map(|p| WeightEntry {
                    name: p.name.clone(),
                    weight: p.weight,
                })
                .collect(),
        };
        PolicyStats {
            mode: self.policy.mode_name(),
            participants: self.roster.names.clone(),
            weights,
            word_counts: WordCounts(
                self.roster
                    .names
                    .iter()
                    .cloned()
                    .zip(self.word_counts.iter().copied())
                    .collect(),
            ),
            cycle: self.cycle,
            current_speaker: self.current_speaker.map(|i| self.roster.names[i].clone()),
            last_speaker: match &self.last_speaker {
                LastSpeaker::Nobody => None,
                LastSpeaker::Human(name) => Some(name.clone()),
                LastSpeaker::Participant(i) => Some(self.roster.names[*i].clone()),
            },
            question_id,
            absent: self
                .roster
                .names
                .iter()
                .zip(&self.absent)
                .filter(|(_, absent)| **absent)
                .map(|(name, _)| name.clone())
                .collect(),
        }
    }

    fn last_index(&self) -> Option<usize> {
        match self.last_speaker {
            LastSpeaker::Participant(i) => Some(i),
            _ => None,
        }
    }

    fn clear_rounds(&mut self) {
        self.word_counts.fill(0);
        self.ratio_words = 0;
        self.round_spoken.fill(false);
        self.cycle = 0;
        self.position = 0;
        self.current_speaker = None;
    }

    /// A round is complete once every participant who can be handed the turn spoke.
    fn mark_spoken(&mut self, index: usize) {
        if self.round_spoken[index] {
            return;
        }
        self.round_spoken[index] = true;
        if (0..self.roster.names.len()).all(|i| !self.eligible(i) || self.round_spoken[i]) {
            self.cycle += 1;
            self.round_spoken.fill(false);
        }
    }

    fn select_sequential(&mut self) -> Option<usize> {
        let n = self.roster.names.len();
        let last = self.last_index();
        for k in 0..n {
            let index = (self.position + k) % n;
            if !self.eligible(index) || Some(index) == last {
                continue;
            }
            self.position = index + 1;
            return Some(index);
        }
        None
    }

    fn select_ratio_priority(&self) -> Option<usize> {
        let last = self.last_index();
        let cold_start = self.last_speaker == LastSpeaker::Nobody;
        let last_was_priority = last.is_some_and(|i| self.roster.priority[i]);
        if !cold_start
            && !last_was_priority
            && let Some(index) = self.pick_priority(last)
        {
            return Some(index);
        }
        self.pick_ratio(last).or_else(|| self.pick_priority(last))
    }

    fn pick_priority(&self, last: Option<usize>) -> Option<usize> {
        let mut best: Option<usize> = None;
        for i in 0..self.roster.names.len() {
            if !self.roster.priority[i] || !self.eligible(i) || Some(i) == last {
                continue;
            }
            if best.is_none_or(|b| self.last_turn[i] < self.last_turn[b]) {
                best = Some(i);
            }
        }
        best
    }

    /// Highest `ratio_difference` = `total_words / total_ratio − words / ratio`: the first
    /// term is common to everyone, so this is the lowest words-per-weight. Comparing the
    /// exact quotient keeps ties exact (IEEE division is correctly rounded), so ties really
    /// go to pattern order.
    fn pick_ratio(&self, last: Option<usize>) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for i in 0..self.roster.names.len() {
            if self.roster.priority[i] || !self.eligible(i) || Some(i) == last {
                continue;
            }
            let words_per_weight = self.word_counts[i] as f64 / self.roster.ratio[i];
            if best.is_none_or(|(_, b)| words_per_weight < b) {
                best = Some((i, words_per_weight));
            }
        }
        best.map(|(i, _)| i)
    }
}

/// A participant's configured weight, as in the stats JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightEntry {
    pub name: String,
    pub weight: Weight,
}

/// Word counts in pattern order, serialized as a JSON object.
pub use voice_protocol::messages::WordCounts;

/// The `stats` structure of the spec, plus `last_speaker` and `question_id`; sent as
/// [`PolicyStats::to_status`].
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyStats {
    pub mode: &'static str,
    pub participants: Vec<String>,
    pub weights: Vec<WeightEntry>,
    pub word_counts: WordCounts,
    pub cycle: u64,
    pub current_speaker: Option<String>,
    pub last_speaker: Option<String>,
    pub question_id: u64,
    /// Participants skipped because they stopped answering (see the controller).
    pub absent: Vec<String>,
}

/// What a pattern allows, checked when a controller starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Viability {
    /// At least two participants can be handed the turn.
    Conversation,
    /// Only this one: never twice in a row, so after each of its turns only a human can
    /// continue.
    OneSpeaker(String),
    /// Nobody can ever be handed the turn (humans take it by speaking).
    NoTurns,
}

impl PolicyStats {
    /// The stats as the controller's `status` message.
    pub fn to_status(&self) -> voice_protocol::messages::PolicyStatus {
        use voice_protocol::messages::{ParticipantWeight, PolicyStatus, Share};
        PolicyStatus {
            mode: self.mode.to_owned(),
            participants: self.participants.clone(),
            weights: self
                .weights
                .iter()
                .map(|entry| ParticipantWeight {
                    name: entry.name.clone(),
                    weight: match entry.weight {
                        Weight::Priority => Share::Priority,
                        Weight::Ratio(w) => Share::Ratio(w),
                    },
                })
                .collect(),
            word_counts: self.word_counts.clone(),
            cycle: self.cycle,
            current_speaker: self.current_speaker.clone(),
            last_speaker: self.last_speaker.clone(),
            question_id: Some(self.question_id),
            absent: self.absent.clone(),
        }
    }

    /// The stats as the JSON of the `status` message.
    pub fn to_json(&self) -> String {
        self.to_status().to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(pattern: &str) -> PolicyEngine {
        PolicyEngine::new(Policy::parse(pattern).unwrap(), &[] as &[&str])
    }

    /// Runs `turns` decisions, each speaker saying `words(turn)` words.
    fn run(e: &mut PolicyEngine, turns: usize, words: impl Fn(usize) -> u64) -> Vec<String> {
        (0..turns)
            .map(|t| {
                let s = e.next_turn().expect("someone speaks");
                e.record_words(s, words(t));
                e.finish_turn();
                e.name(s).to_owned()
            })
            .collect()
    }

    #[test]
    fn the_answerer_of_the_human_is_foretold_without_changing_anything() {
        let mut e = engine("[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]");
        run(&mut e, 3, |_| 5);
        let before = format!("{e:?}");
        let foretold = e
            .answerer_if_human_spoke("human")
            .map(|i| e.name(i).to_owned());
        assert_eq!(foretold.as_deref(), Some("tutor"));
        assert_eq!(format!("{e:?}"), before);
        // What happens when the human does speak.
        e.finish_turn();
        e.human_spoke("human", 4);
        let next = e.next_turn().unwrap();
        assert_eq!(e.name(next), "tutor");
        // In a round, the one after the human.
        let mut round = engine("[human → a → b]");
        run(&mut round, 2, |_| 3);
        let foretold = round.answerer_if_human_spoke("human");
        assert_eq!(foretold.map(|i| round.name(i)), Some("a"));
    }

    #[test]
    fn sequential_round_robin_counts_cycles() {
        let mut e = engine("[judge → defense → prosecution]");
        let mut cycles = vec![];
        let names: Vec<String> = (0..7)
            .map(|_| {
                let s = e.next_turn().unwrap();
                cycles.push(e.cycle());
                e.name(s).to_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "judge",
                "defense",
                "prosecution",
                "judge",
                "defense",
                "prosecution",
                "judge"
            ]
        );
        assert_eq!(cycles, [0, 0, 1, 1, 1, 2, 2]);
    }

    #[test]
    fn sequential_skips_humans_and_restarts_after_human() {
        let mut e = engine("[human → a → b]");
        assert_eq!(run(&mut e, 3, |_| 5), ["a", "b", "a"]);
        e.human_spoke("human", 4);
        assert_eq!(run(&mut e, 2, |_| 5), ["a", "b"]);
    }

    #[test]
    fn example_1_typical_flow() {
        let mut e = engine("[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]");
        // Cold start: a student, not the tutor; then tutor after every student.
        let flow = run(&mut e, 5, |_| 20);
        assert_eq!(flow, ["student1", "tutor", "student2", "tutor", "student1"]);
        // Human interrupts: tutor answers first, then ratio balancing resumes.
        e.human_spoke("human", 8);
        assert_eq!(e.stats(0).word_counts.get("human"), Some(8));
        assert_eq!(e.stats(0).word_counts.get("student1"), Some(0));
        let flow = run(&mut e, 4, |_| 20);
        assert_eq!(flow, ["tutor", "student1", "tutor", "student2"]);
    }

    #[test]
    fn human_is_never_selected() {
        let mut e = engine("[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]");
        let flow = run(&mut e, 200, |t| 5 + (t as u64 * 7) % 30);
        assert!(flow.iter().all(|s| s != "human"));
        // The tiny human weight would otherwise dominate the formula:
        assert!(e.ratio_difference(0).unwrap() > e.ratio_difference(2).unwrap());
    }

    #[test]
    fn example_2_judge_answers_every_argument() {
        let mut e = engine("[(judge, *), (defense, 1), (prosecution, 1)]");
        let flow = run(&mut e, 8, |_| 30);
        assert_eq!(
            flow,
            [
                "defense",
                "judge",
                "prosecution",
                "judge",
                "defense",
                "judge",
                "prosecution",
                "judge"
            ]
        );
    }

    #[test]
    fn no_back_to_back_even_when_far_behind() {
        let mut e = engine("[(a, 100), (b, 1)]");
        let flow = run(&mut e, 20, |_| 10);
        for pair in flow.windows(2) {
            assert_ne!(pair[0], pair[1]);
        }
    }

    #[test]
    fn lone_agent_waits_for_the_human() {
        let mut e = engine("[(human, 1), (assistant, *)]");
        // Cold start with no ratio participant: the priority one greets.
        assert_eq!(run(&mut e, 1, |_| 5), ["assistant"]);
        assert_eq!(e.next_turn(), None);
        e.human_spoke("human", 3);
        assert_eq!(run(&mut e, 1, |_| 5), ["assistant"]);
        assert_eq!(e.next_turn(), None);
    }

    #[test]
    fn several_priority_participants_take_turns() {
        let mut e = engine("[(chair, *), (cochair, *), (a, 1), (b, 1)]");
        let flow = run(&mut e, 8, |_| 10);
        assert_eq!(
            flow,
            ["a", "chair", "b", "cochair", "a", "chair", "b", "cochair"]
        );
    }

    #[test]
    fn extra_humans_from_configuration() {
        let policy = Policy::parse("[(alice, 1), (tutor, *), (bob, 1)]").unwrap();
        let mut e = PolicyEngine::new(policy, &["alice"]);
        let flow = run(&mut e, 6, |_| 10);
        assert!(flow.iter().all(|s| s != "alice"));
        assert!(e.is_human_name("alice"));
        e.human_spoke("alice", 5);
        assert_eq!(e.last_speaker(), &LastSpeaker::Human("alice".into()));
    }

    #[test]
    fn reset_is_a_cold_start() {
        let mut e = engine("[(tutor, *), (s1, 1), (s2, 1)]");
        run(&mut e, 5, |_| 10);
        e.reset();
        assert_eq!(e.last_speaker(), &LastSpeaker::Nobody);
        assert_eq!(run(&mut e, 2, |_| 10), ["s1", "tutor"]);
    }

    /// Deterministic lengths in 5..=40 (a small LCG), as policy-sim uses.
    fn varying(t: usize) -> u64 {
        let x = (t as u64).wrapping_mul(2_654_435_761).wrapping_add(12_345) % 36;
        5 + x
    }

    #[test]
    fn example_3_shares_converge() {
        let mut e = engine("[(moderator, 3), (expert1, 2), (expert2, 2), (guest, 1)]");
        run(&mut e, 1000, varying);
        let stats = e.stats(0);
        let total: u64 = stats.word_counts.0.iter().map(|(_, c)| c).sum();
        for (name, target) in [
            ("moderator", 3.0 / 8.0),
            ("expert1", 2.0 / 8.0),
            ("expert2", 2.0 / 8.0),
            ("guest", 1.0 / 8.0),
        ] {
            let share = stats.word_counts.get(name).unwrap() as f64 / total as f64;
            assert!(
                (share - target).abs() < 0.02,
                "{name}: {share:.4} vs {target:.4}"
            );
        }
    }

    #[test]
    fn stats_json_matches_the_spec_shape() {
        let mut e = engine("[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]");
        let s = e.next_turn().unwrap();
        e.record_words(s, 12);
        let json: serde_json::Value = serde_json::from_str(&e.stats(0).to_json()).unwrap();
        assert_eq!(json["mode"], "ratio_priority");
        assert_eq!(
            json["participants"],
            serde_json::json!(["human", "tutor", "student1", "student2"])
        );
        assert_eq!(
            json["weights"][1],
            serde_json::json!({"name": "tutor", "weight": "*"})
        );
        assert_eq!(json["weights"][0]["weight"], 0.001);
        assert_eq!(json["word_counts"]["student1"], 12);
        assert_eq!(json["cycle"], 0);
        assert_eq!(json["current_speaker"], "student1");
        let keys: Vec<&String> = json["word_counts"].as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&engine("[a → b]").stats(0).to_json())
                .unwrap()["mode"],
            "sequential"
        );
    }

    #[test]
    fn an_absent_participant_is_skipped_until_present_and_rounds_close_without_it() {
        let mut e = engine("[(tutor, *), (s1, 1), (s2, 1)]");
        let s1 = e.index_of("s1").unwrap();
        assert!(e.set_absent(s1, true));
        assert!(!e.set_absent(s1, true), "no change the second time");
        let spoken = run(&mut e, 8, |_| 5);
        assert!(!spoken.iter().any(|n| n == "s1"), "{spoken:?}");
        assert!(e.cycle() >= 3, "rounds close without s1: {}", e.cycle());
        assert_eq!(e.stats(0).absent, ["s1"]);
        e.set_absent(s1, false);
        let spoken = run(&mut e, 4, |_| 5);
        assert!(spoken.iter().any(|n| n == "s1"), "{spoken:?}");
        assert!(e.stats(0).absent.is_empty());
    }

    #[test]
    fn everyone_absent_opens_the_floor() {
        let mut e = engine("[a → b]");
        e.set_absent(0, true);
        e.set_absent(1, true);
        assert_eq!(e.next_turn(), None);
    }

    #[test]
    fn viability_names_patterns_that_cannot_converse() {
        assert_eq!(engine("[(human, 1)]").viability(), Viability::NoTurns);
        assert_eq!(
            engine("[a]").viability(),
            Viability::OneSpeaker("a".to_owned())
        );
        assert_eq!(
            engine("[(human, 1), (tutor, *)]").viability(),
            Viability::OneSpeaker("tutor".to_owned())
        );
        assert_eq!(engine("[a, b]").viability(), Viability::Conversation);
        let humans = PolicyEngine::new(Policy::parse("[alice, bob]").unwrap(), &["alice", "bob"]);
        assert_eq!(humans.viability(), Viability::NoTurns);
    }
}
