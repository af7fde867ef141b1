//! (to be written) The lesson's `expect` claims: parsed at load, evaluated against results.
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub text: String,
}
// TEMP
impl Claim {
    pub fn subject(&self) -> &str {
        ""
    }
}
pub fn evaluate(c: &Claim, _r: &crate::results::LessonResult) -> crate::results::ClaimResult {
    crate::results::ClaimResult {
        claim: c.text.clone(),
        holds: None,
        detail: String::new(),
    }
}
