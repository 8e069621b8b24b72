//! `model-bench together [ROUNDS [GGUF]]`: replies written at the same time on one model
//! host, their decode steps shared or taken in turn, side by side in one run.
//!
//! Each round, the tutor and both students write a turn at once (as the turns read ahead
//! and the answer do in a session), on one thread as the dataflows run the model; then
//! the tutor alone, for the speed of one reply. Printed: tokens per second of each reply
//! while it was written, and of the three together.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use agent_bridge::{GenerationRequest, Persona, PromptLine, host::HostJob, prompt::Prompt};
use eyre::bail;
use llm_bridge::{
    backend::BackendEvent,
    local::{LocalConfig, ModelHost},
};

use crate::{bench_config, percentile};

const PARTICIPANTS: [&str; 3] = ["tutor", "student1", "student2"];

const LINES: [(&str, &str); 6] = [
    ("student1", "What does a derivative actually measure?"),
    ("tutor", "It measures how fast a function changes at one point."),
    ("human", "Can you show me a derivative with actual numbers?"),
    ("student2", "So for x squared the slope at three is six?"),
    ("tutor", "Yes: two times three is six, the slope of the tangent there."),
    ("student1", "Why do we take a limit instead of just dividing?"),
];

struct Reply {
    tokens: usize,
    tokens_per_s: f64,
}

pub fn together(rounds: usize, model: &Path) -> eyre::Result<()> {
    println!(
        "three replies at once, then one alone; {rounds} rounds, 1 thread, {}",
        model.file_name().unwrap_or_default().to_string_lossy()
    );
    println!(
        "| steps | replies at once | tok/s of a reply p50 | tokens, all replies | wall s | tok/s together |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for shared in [false, true] {
        let config = LocalConfig {
            participants: PARTICIPANTS.len() as u32,
            max_tokens: 48,
            shared_steps: shared,
            ..bench_config(model, true)
        };
        let host = ModelHost::load(config)?;
        for at_once in [PARTICIPANTS.len(), 1] {
            let mut replies = Vec::new();
            let mut wall = 0.0;
            for round in 0..rounds {
                let started = Instant::now();
                let round_replies = std::thread::scope(|scope| {
                    let writers: Vec<_> = PARTICIPANTS[..at_once]
                        .iter()
                        .map(|who| scope.spawn(|| write(&host, who, round)))
                        .collect();
                    writers
                        .into_iter()
                        .map(|w| w.join().expect("a writer panicked"))
                        .collect::<eyre::Result<Vec<_>>>()
                })?;
                wall += started.elapsed().as_secs_f64();
                replies.extend(round_replies);
            }
            let tokens: usize = replies.iter().map(|r| r.tokens).sum();
            println!(
                "| {} | {at_once} | {:.1} | {tokens} | {wall:.1} | {:.1} |",
                if shared { "shared" } else { "in turn" },
                percentile(replies.iter().map(|r| r.tokens_per_s).collect(), 0.5),
                tokens as f64 / wall,
            );
        }
    }
    Ok(())
}

/// One turn of `who` in round `round`: the conversation so far, then its direction.
fn write(host: &ModelHost, who: &str, round: usize) -> eyre::Result<Reply> {
    let lines = (0..LINES.len() + round)
        .map(|i| {
            let (speaker, text) = LINES[i % LINES.len()];
            PromptLine::new(speaker, text)
        })
        .collect();
    let request = GenerationRequest {
        question_id: 10 + round as u64,
        prompt: Prompt {
            persona: format!("You are {who}, in a study session on derivatives."),
            lines,
            requests: vec!["Say one thing that builds on the last line.".into()],
            ..Prompt::default()
        },
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
    let _cancel = host.submit(who, job, tx);
    loop {
        match rx.recv_timeout(Duration::from_secs(300))? {
            BackendEvent::Chunk { .. } => {}
            BackendEvent::Finished { error: Some(e), .. } => bail!("{who}: {e}"),
            BackendEvent::Finished { error: None, .. } => break,
        }
    }
    let stats = host.last_stats(who).unwrap_or_default();
    Ok(Reply {
        tokens: stats.generated_tokens,
        tokens_per_s: stats.generated_tokens as f64 / (stats.generation_ms / 1000.0).max(1e-6),
    })
}
