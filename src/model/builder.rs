//! Small lessons for tests, built in a line instead of forty: every field has a plain default
//! and only what a test is about needs saying.

use super::claim::Claim;
use super::lesson::{
    Lesson, Metrics, Page, Question, Reference, Sweep, SweepPoint, Topic, Variant,
};

/// A lesson under construction; `build` gives the `Lesson`.
#[derive(Debug, Clone)]
pub struct LessonBuilder {
    lesson: Lesson,
}

/// A variant that launches one warp of an empty kernel `k` from `k.cu`.
pub fn variant(name: &str) -> Variant {
    Variant {
        name: name.into(),
        source_path: "k.cu".into(),
        source: "extern \"C\" __global__ void k() {}".into(),
        kernel: "k".into(),
        defines: vec![],
        grid: [1, 1, 1],
        block: [32, 1, 1],
        smem: 0,
        args: vec![],
        options: vec![],
        note: None,
        constants: vec![],
        attrs: Default::default(),
        cold_l2: false,
        transfer: None,
        prefetch: false,
        per: vec![],
    }
}

impl LessonBuilder {
    /// A global-memory lesson `id`, first in the course, with no pages, variants or claims.
    pub fn new(id: &str) -> LessonBuilder {
        LessonBuilder {
            lesson: Lesson {
                id: id.into(),
                title: id.into(),
                topic: Topic::Global,
                order: 1,
                file: format!("{id}.yaml"),
                pages: vec![],
                problem: vec![],
                problem_cpu: vec![],
                buffers: vec![],
                variants: vec![],
                reference: Reference::Variant(0),
                metrics: Metrics::default(),
                expect: vec![],
                checkpoint: vec![],
                trace_blocks: 4,
                tolerance: None,
                measures: vec![],
                requires: Default::default(),
                sweeps: vec![],
                knobs: vec![],
                l2_persisting_bytes: None,
                exercises: Vec::new(),
                textures: vec![],
            },
        }
    }

    pub fn title(mut self, title: &str) -> Self {
        self.lesson.title = title.into();
        self
    }

    pub fn topic(mut self, topic: Topic) -> Self {
        self.lesson.topic = topic;
        self
    }

    pub fn order(mut self, order: u32) -> Self {
        self.lesson.order = order;
        self
    }

    /// One more page of prose.
    pub fn page(mut self, title: &str, text: &str) -> Self {
        self.lesson.pages.push(Page {
            title: title.into(),
            text: text.into(),
            answers: false,
        });
        self
    }

    /// One more variant, as `variant(name)` makes it.
    pub fn variant(self, name: &str) -> Self {
        self.with_variant(variant(name))
    }

    /// One more variant, made by the test.
    pub fn with_variant(mut self, v: Variant) -> Self {
        self.lesson.variants.push(v);
        self
    }

    pub fn claim(mut self, claim: Claim) -> Self {
        self.lesson.expect.push(claim);
        self
    }

    /// One more checkpoint question; `answer` counts from 0.
    pub fn question(mut self, q: &str, choices: &[&str], answer: usize, why: &str) -> Self {
        self.lesson.checkpoint.push(Question {
            q: q.into(),
            choices: choices.iter().map(|c| c.to_string()).collect(),
            answer,
            why: why.into(),
        });
        self
    }

    /// A sweep over `define`: one variant per value, named `{name}-{value}`.
    pub fn sweep(mut self, name: &str, define: &str, x_label: &str, values: &[i64]) -> Self {
        let mut points = Vec::new();
        for &value in values {
            let v = format!("{name}-{value}");
            let mut var = variant(&v);
            var.defines = vec![(define.into(), value.to_string())];
            self.lesson.variants.push(var);
            points.push(SweepPoint { variant: v, value });
        }
        self.lesson.sweeps.push(Sweep {
            name: name.into(),
            define: define.into(),
            x_label: x_label.into(),
            points,
        });
        self
    }

    pub fn build(self) -> Lesson {
        self.lesson
    }
}
