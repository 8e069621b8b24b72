//! `model-bench together [ROUNDS [GGUF]]`: the answer to the human written while two
//! turns are written beside it on one model host, against the answer alone.
//!
//! Each round, the human's question comes as both students start a turn (as turns read
//! ahead do in a session); the tutor answers it. Then the same answer alone. On one
//! thread, as the dataflows run the model. Printed: the answer's first words (from its
//! request) and its tokens per second, the turns' tokens per second, and each round's
//! wall time.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use agent_bridge::{GenerationRequest, Persona, PromptLine, host::HostJob, prompt::Prompt};
use dialogue_planner::{Move, TurnPlan};
use eyre::bail;
use llm_bridge::{
    backend::BackendEvent,
    local::{LocalConfig, ModelHost},
};

use crate::{bench_config, percentile};

const LINES: [(&str, &str); 6] = [
    ("student1", "What does a derivative actually measure?"),
    (
        "tutor",
        "It measures how fast a function changes at one point.",
    ),
    ("student2", "So for x squared the slope at three is six?"),
    (
        "tutor",
        "Yes: two times three is six, the slope of the tangent there.",
    ),
    (
        "student1",
        "Why do we take a limit instead of just dividing?",
    ),
    (
        "tutor",
        "Because dividing by zero is not allowed; the limit gets close instead.",
    ),
];

const QUESTIONS: [&str; 3] = [
    "Can you show me a derivative with actual numbers?",
    "What happens at a sharp corner, like the absolute value?",
    "Where would I use this outside of class?",
];

/// One reply: when its first words came, how fast it was written.
struct Reply {
    first_words_ms: f64,
    tokens_per_s: f64,
}

pub fn together(rounds: usize, model: &Path) -> eyre::Result<()> {
    println!(
        "the answer to the human beside two turns, then alone; {rounds} rounds, 1 thread, {}",
        model.file_name().unwrap_or_default().to_string_lossy()
    );
    println!(
        "| answer written | answer's first words p50 / max (ms) | answer tok/s p50 | turns' tok/s p50 | wall s per round |"
    );
    println!("|---|---:|---:|---:|---:|");
    for beside in [true, false] {
        let config = LocalConfig {
            participants: 3,
            max_tokens: 48,
            ..bench_config(model, true)?
        };
        let host = &ModelHost::load(config)?;
        let (mut answers, mut turns, mut wall) = (Vec::new(), Vec::new(), 0.0);
        for round in 0..rounds {
            let started = Instant::now();
            let (answer, others) = std::thread::scope(|scope| {
                let others: Vec<_> = ["student1", "student2"]
                    .into_iter()
                    .filter(|_| beside)
                    .map(|who| scope.spawn(move || write(host, who, round, false)))
                    .collect();
                // The question comes just after the turns started, as it does when the
                // human speaks up while the next turns are read ahead.
                std::thread::sleep(Duration::from_millis(200));
                let answer = write(host, "tutor", round, true);
                let others = others
                    .into_iter()
                    .map(|w| w.join().expect("a writer panicked"))
                    .collect::<eyre::Result<Vec<_>>>();
                (answer, others)
            });
            wall += started.elapsed().as_secs_f64();
            answers.push(answer?);
            turns.extend(others?);
        }
        let p =
            |v: &[Reply], f: fn(&Reply) -> f64, q: f64| percentile(v.iter().map(f).collect(), q);
        println!(
            "| {} | {:.0} / {:.0} | {:.1} | {} | {:.1} |",
            if beside { "beside two turns" } else { "alone" },
            p(&answers, |r| r.first_words_ms, 0.5),
            p(&answers, |r| r.first_words_ms, 1.0),
            p(&answers, |r| r.tokens_per_s, 0.5),
            if turns.is_empty() {
                "–".to_owned()
            } else {
                format!("{:.1}", p(&turns, |r| r.tokens_per_s, 0.5))
            },
            wall / rounds as f64,
        );
    }
    Ok(())
}

/// `who`'s reply in round `round`: the tutor's answer to the human's question, or a
/// student's turn.
fn write(host: &ModelHost, who: &str, round: usize, answer: bool) -> eyre::Result<Reply> {
    let mut lines: Vec<PromptLine> = (0..LINES.len() + round)
        .map(|i| {
            let (speaker, text) = LINES[i % LINES.len()];
            PromptLine::new(speaker, text)
        })
        .collect();
    let (requests, plan) = if answer {
        lines.push(PromptLine::new("human", QUESTIONS[round % QUESTIONS.len()]));
        let plan = TurnPlan {
            action: Move::AnswerHuman,
            point: "derivatives".into(),
            addressee: Some("human".into()),
        };
        (vec!["Answer the human.".into()], Some(plan))
    } else {
        (
            vec!["Say one thing that builds on the last line.".into()],
            None,
        )
    };
    let request = GenerationRequest {
        question_id: 10 + round as u64 * 3 + u64::from(answer),
        prompt: Prompt {
            persona: format!("You are {who}, in a study session on derivatives."),
            lines,
            requests,
            ..Prompt::default()
        },
        plan,
        max_words: Some(40),
        ..GenerationRequest::default()
    };
    let job = HostJob {
        persona: Persona::fallback(who),
        priority: request.priority(),
        request,
        prefill: false,
        whole: false,
    };
    let (tx, rx) = crossbeam_channel::unbounded();
    let started = Instant::now();
    let _cancel = host.submit(who, job, tx);
    let mut first_words = None;
    loop {
        match rx.recv_timeout(Duration::from_secs(300))? {
            BackendEvent::Chunk { .. } => {
                first_words.get_or_insert_with(|| started.elapsed().as_secs_f64() * 1000.0);
            }
            BackendEvent::Finished { error: Some(e), .. } => bail!("{who}: {e}"),
            BackendEvent::Finished { error: None, .. } => break,
        }
    }
    let stats = host.last_stats(who).unwrap_or_default();
    Ok(Reply {
        first_words_ms: first_words.unwrap_or_default(),
        tokens_per_s: stats.generated_tokens as f64 / (stats.generation_ms / 1000.0).max(1e-6),
    })
}
