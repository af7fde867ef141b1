//! The checkpoint: the lesson's questions as a last page, answered with the number keys,
//! each answer explained.

use crate::course::prose::reflow;
use crate::model::{Lesson, Page};
use crate::ui::app::App;

pub fn page(app: &App, lesson: &Lesson) -> Page {
    page_with_starts(app, lesson).0
}

/// The page, and the line each question starts at, so the pane can keep the question being
/// asked in view.
pub fn page_with_starts(app: &App, lesson: &Lesson) -> (Page, Vec<usize>) {
    let mut text = String::new();
    let mut starts = Vec::new();
    let mut asked = false;
    for (qi, q) in lesson.checkpoint.iter().enumerate() {
        starts.push(text.lines().count());
        text.push_str(&format!("{}. {}\n", qi + 1, reflow(&q.q)));
        for (ci, c) in q.choices.iter().enumerate() {
            text.push_str(&format!("   {}) {}\n", ci + 1, reflow(c)));
        }
        let why = reflow(&q.why);
        match app.reading.answer(&lesson.id, qi) {
            Some(a) if a == q.answer => {
                text.push_str(&format!("   ✓ {}) is right. {why}\n", a + 1))
            }
            Some(a) => text.push_str(&format!(
                "   ✗ {}) is not it; the answer is {}). {why}\n",
                a + 1,
                q.answer + 1,
            )),
            None if !asked => {
                asked = true;
                text.push_str("   → press the number of your answer\n");
            }
            None => {}
        }
        text.push('\n');
    }
    let page = Page {
        title: "Checkpoint".into(),
        text,
        answers: false,
    };
    (page, starts)
}
