//! `gpulab list`: the lessons in course order.

use super::load_course;
use super::say::say;
use crate::course::bundle::CourseRoot;
use anyhow::Result;

pub fn cmd_list(root: &CourseRoot, json: bool) -> Result<()> {
    let lessons = load_course(root)?;
    if json {
        let items: Vec<_> = lessons
            .iter()
            .map(|l| {
                serde_json::json!({
                    "id": l.id, "order": l.order, "title": l.title, "space": l.topic,
                    "variants": l.variants.iter().map(|v| &v.name).collect::<Vec<_>>(),
                })
            })
            .collect();
        say!("{}", serde_json::to_string_pretty(&items)?);
    } else {
        for l in &lessons {
            say!(
                "{:02}  {:<20} {:<10} {}",
                l.order,
                l.id,
                l.topic.label().to_lowercase(),
                l.title
            );
        }
    }
    Ok(())
}
