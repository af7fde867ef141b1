//! A `TestBackend` that notes when each frame was finished and what it showed, so a test or
//! a benchmark can tell how soon the real loop drew its first frame. Shared by path.

use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use std::time::{Duration, Instant};

pub struct FrameClock {
    pub inner: TestBackend,
    pub started: Instant,
    /// Each frame: how long after `started` it was flushed, and its text.
    pub frames: Vec<(Duration, String)>,
}

impl FrameClock {
    pub fn new(width: u16, height: u16, started: Instant) -> FrameClock {
        FrameClock {
            inner: TestBackend::new(width, height),
            started,
            frames: Vec::new(),
        }
    }
}

impl Backend for FrameClock {
    type Error = <TestBackend as Backend>::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, p: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(p)
    }
    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }
    fn clear_region(&mut self, t: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(t)
    }
    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }
    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()?;
        let text = gpulab::ui::buffer_to_text(self.inner.buffer());
        self.frames.push((self.started.elapsed(), text));
        Ok(())
    }
}
