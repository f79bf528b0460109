//! Values `index.js` holds by handle (a compiled tool list, a stream): a table whose freed slots
//! are reused. A fresh instance starts with empty tables, so `index.js` ties every handle to the
//! instance that gave it.

/// The values, by handle; a freed slot is `None`.
pub(crate) struct Slots<T>(Vec<Option<T>>);

impl<T> Slots<T> {
    pub(crate) const fn new() -> Self {
        Slots(Vec::new())
    }

    /// Keeps `value`; its handle.
    pub(crate) fn insert(&mut self, value: T) -> u32 {
        let index = match self.0.iter().position(Option::is_none) {
            Some(i) => {
                self.0[i] = Some(value);
                i
            }
            None => {
                self.0.push(Some(value));
                self.0.len() - 1
            }
        };
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    pub(crate) fn get(&self, handle: u32) -> Option<&T> {
        self.0.get(handle as usize)?.as_ref()
    }

    pub(crate) fn get_mut(&mut self, handle: u32) -> Option<&mut T> {
        self.0.get_mut(handle as usize)?.as_mut()
    }

    /// Frees the slot of `handle` (nothing when it is free already).
    pub(crate) fn remove(&mut self, handle: u32) {
        if let Some(slot) = self.0.get_mut(handle as usize) {
            *slot = None;
        }
    }
}
