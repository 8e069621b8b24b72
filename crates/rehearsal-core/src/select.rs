//! Which panelist speaks next.
//!
//! The spec's priority, applied lexicographically:
//! 1. focus-area match with the slide: how many of the agent's focus keywords the
//!    slide mentions ([`Slide::mentions`]);
//! 2. the agent who has not spoken for the longest time (never spoken comes first);
//! 3. the higher relevance score of the agent's pre-generated candidate question
//!    (no candidate ranks below any candidate);
//! 4. rotation skeptic → analyst → contrarian, starting after the role of the last
//!    agent selected; then configuration order.

use std::cmp::Ordering;

use crate::config::{AgentConfig, Role};
use crate::deck::Slide;

/// What selection needs to know about one agent.
#[derive(Debug, Clone, Copy)]
pub struct AgentView<'a> {
    pub config: &'a AgentConfig,
    /// When the agent was last called on, if ever.
    pub last_spoke_ms: Option<u64>,
    /// Relevance (0..1) of its current candidate question, if it has one.
    pub candidate_relevance: Option<f64>,
    /// It has a question the presenter left open last session, not asked again yet: it
    /// goes first, whatever the slide (the presenter is told where they were weak first).
    pub reopens: bool,
}

/// How many of `focus` the slide mentions.
pub fn focus_score(focus: &[String], slide: Option<&Slide>) -> usize {
    slide.map_or(0, |s| focus.iter().filter(|f| s.mentions(f)).count())
}

/// Distance of `role` from the rotation's next role (0 = its turn).
fn rotation_distance(role: Role, next: Role) -> usize {
    (role.rotation_index() + 3 - next.rotation_index()) % 3
}

/// Indices into `agents`, best first. `next_in_rotation` is the role whose turn it is
/// on a tie.
pub fn rank(agents: &[AgentView<'_>], slide: Option<&Slide>, next_in_rotation: Role) -> Vec<usize> {
    let scores: Vec<usize> = agents
        .iter()
        .map(|a| focus_score(&a.config.focus, slide))
        .collect();
    let mut order: Vec<usize> = (0..agents.len()).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (&agents[i], &agents[j]);
        b.reopens
            .cmp(&a.reopens)
            .then_with(|| scores[j].cmp(&scores[i]))
            .then_with(|| match (a.last_spoke_ms, b.last_spoke_ms) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) => x.cmp(&y),
            })
            .then_with(|| {
                let r = |v: Option<f64>| v.unwrap_or(-1.0);
                r(b.candidate_relevance).total_cmp(&r(a.candidate_relevance))
            })
            .then_with(|| {
                rotation_distance(a.config.role, next_in_rotation)
                    .cmp(&rotation_distance(b.config.role, next_in_rotation))
            })
            .then(i.cmp(&j))
    });
    order
}

/// The role after `role` in the rotation.
pub fn next_role(role: Role) -> Role {
    match role {
        Role::Skeptic => Role::Analyst,
        Role::Analyst => Role::Contrarian,
        Role::Contrarian => Role::Skeptic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PanelConfig;
    use crate::deck::Deck;

    fn views(c: &PanelConfig) -> Vec<AgentView<'_>> {
        c.agents
            .iter()
            .map(|config| AgentView {
                config,
                last_spoke_ms: None,
                candidate_relevance: None,
                reopens: false,
            })
            .collect()
    }

    #[test]
    fn focus_match_comes_first() {
        let c = PanelConfig::default();
        let deck = Deck::parse("## Competition\nThree rivals, thin moat, our pricing.");
        let mut v = views(&c);
        v[2].last_spoke_ms = Some(1_000); // contrarian spoke recently, still wins on focus (2 vs 1)
        assert_eq!(rank(&v, deck.slide(0), Role::Skeptic)[0], 2);
    }

    #[test]
    fn then_longest_silence_then_relevance() {
        let c = PanelConfig::default();
        let mut v = views(&c);
        v[0].last_spoke_ms = Some(50);
        v[1].last_spoke_ms = Some(10);
        v[2].last_spoke_ms = Some(10);
        v[1].candidate_relevance = Some(0.4);
        v[2].candidate_relevance = Some(0.9);
        assert_eq!(rank(&v, None, Role::Skeptic), [2, 1, 0]);
    }

    #[test]
    fn rotation_breaks_full_ties() {
        let c = PanelConfig::default();
        let v = views(&c);
        assert_eq!(rank(&v, None, Role::Skeptic), [0, 1, 2]);
        assert_eq!(rank(&v, None, Role::Analyst), [1, 2, 0]);
        assert_eq!(rank(&v, None, Role::Contrarian), [2, 0, 1]);
        assert_eq!(next_role(Role::Contrarian), Role::Skeptic);
    }
}
