//! `requires: { cc, gpus }`: what a lesson needs of the machine.

use super::cx::Cx;
use crate::course::schema::RawLesson;
use crate::model::{Requires, parse_cc};

pub(super) fn requires(cx: &mut Cx, raw: &RawLesson) -> Requires {
    let Some(r) = &raw.head.requires else {
        return Requires::default();
    };
    let cc = r.cc.as_ref().and_then(|cc| {
        let parsed = parse_cc(&cc.0);
        if parsed.is_none() {
            cx.err(
                "requires.cc",
                format!(
                    "`cc` is a compute capability such as \"9.0\", not `{}`",
                    cc.0
                ),
            );
        }
        parsed
    });
    if r.gpus == Some(0) {
        cx.err("requires.gpus", "`gpus` must be at least 1");
    }
    Requires {
        cc,
        gpus: r.gpus.filter(|&n| n > 0),
    }
}
