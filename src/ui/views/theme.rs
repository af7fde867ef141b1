//! Styles, with a plain set for `NO_COLOR` terminals (and snapshot tests of both).

use ratatui::style::{Color, Modifier, Style};

pub struct Theme {
    pub color: bool,
    pub title: Style,
    pub strong: Style,
    pub dim: Style,
    pub accent: Style,
    pub good: Style,
    pub bad: Style,
    pub warn: Style,
    pub focus: Style,
    pub border: Style,
    pub spark: Style,
    pub selected: Style,
    /// A word the glossary explains, where the course first uses it.
    pub term: Style,
    /// Code in prose (`like this`): in colour, without its backticks; in plain, the
    /// backticks stay, being all that marks it.
    pub code: Option<Style>,
}

impl Theme {
    pub fn new(color: bool) -> Theme {
        if !color {
            let plain = Style::default();
            return Theme {
                color,
                title: plain,
                strong: plain.add_modifier(Modifier::BOLD),
                dim: plain,
                accent: plain,
                good: plain,
                bad: plain.add_modifier(Modifier::BOLD),
                warn: plain,
                focus: plain.add_modifier(Modifier::BOLD),
                border: plain,
                spark: plain,
                selected: plain.add_modifier(Modifier::REVERSED),
                term: plain.add_modifier(Modifier::UNDERLINED),
                code: None,
            };
        }
        Theme {
            color,
            title: Style::default().fg(Color::Cyan),
            strong: Style::default().add_modifier(Modifier::BOLD),
            dim: Style::default().fg(Color::DarkGray),
            accent: Style::default().fg(Color::Yellow),
            good: Style::default().fg(Color::Green),
            bad: Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            warn: Style::default().fg(Color::Magenta),
            focus: Style::default().fg(Color::Yellow),
            border: Style::default().fg(Color::DarkGray),
            spark: Style::default().fg(Color::Cyan),
            selected: Style::default().fg(Color::Black).bg(Color::Cyan),
            term: Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::UNDERLINED),
            code: Some(Style::default().fg(Color::LightBlue)),
        }
    }
}
