//! What a bridge asks of the model host that serves every participant of a machine: the
//! participant (its persona: whose names its output may not write), the request, and how
//! urgent it is. Carried as the payload of a `voice_protocol::messages::ModelCall`.

pub use model_schedule::Priority;

use crate::{GenerationRequest, Persona};

/// One request to the model host.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostJob {
    pub persona: Persona,
    pub request: GenerationRequest,
    pub priority: Priority,
    /// Only read the conversation into the participant's cache; nothing is said.
    pub prefill: bool,
    /// With `prefill`: the request is the participant's next turn as predicted now
    /// (nothing more said before it): read the whole of it but its last token. Without,
    /// the human is still speaking: read what stays when their words come.
    #[serde(default)]
    pub whole: bool,
}

/// Longest job the host reads, in bytes: a prompt of a 2048-token context is about
/// 10 KB; a bigger one is an error answered to its bridge, never a reason to stop.
pub const MAX_JOB_BYTES: usize = 256 * 1024;

/// Why a job could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    #[error("the request is {0} bytes; the model host reads at most {MAX_JOB_BYTES}")]
    TooLarge(usize),
    #[error("unreadable request: {0}")]
    Unreadable(String),
}

impl HostJob {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("a job is plain data")
    }

    pub fn decode(body: &str) -> Result<Self, JobError> {
        if body.len() > MAX_JOB_BYTES {
            return Err(JobError::TooLarge(body.len()));
        }
        serde_json::from_str(body).map_err(|e| JobError::Unreadable(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Prompt;

    fn job() -> HostJob {
        HostJob {
            persona: Persona::fallback("tutor"),
            request: GenerationRequest {
                question_id: 4,
                prompt: Prompt {
                    persona: "You are a tutor.".into(),
                    ..Prompt::default()
                },
                instruction: Some("Be brief.".into()),
                json: false,
                max_words: Some(20),
                plan: Some(dialogue_planner::TurnPlan {
                    action: dialogue_planner::Move::AnswerHuman,
                    point: "limits".into(),
                    addressee: Some("human".into()),
                }),
                opens_with: Vec::new(),
                takes_up: None,
                asks: false,
            },
            priority: Priority::Answer,
            prefill: false,
            whole: false,
        }
    }

    #[test]
    fn a_job_reads_back_as_it_was_written() {
        let job = job();
        assert_eq!(HostJob::decode(&job.encode()), Ok(job));
    }

    #[test]
    fn a_bad_or_huge_job_is_an_error_not_a_panic() {
        assert!(matches!(
            HostJob::decode("{\"persona\":"),
            Err(JobError::Unreadable(_))
        ));
        let huge = "x".repeat(MAX_JOB_BYTES + 1);
        assert_eq!(
            HostJob::decode(&huge),
            Err(JobError::TooLarge(MAX_JOB_BYTES + 1))
        );
    }

    #[test]
    fn an_answer_to_the_human_is_the_most_urgent_request() {
        let job = job();
        assert_eq!(job.request.priority(), Priority::Answer);
        let mut side = job.request.clone();
        side.plan = None;
        side.question_id = 0;
        assert_eq!(side.priority(), Priority::Side);
        let mut turn = job.request;
        turn.plan = None;
        assert_eq!(turn.priority(), Priority::Turn);
    }
}
