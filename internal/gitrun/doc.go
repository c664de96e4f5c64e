// Package gitrun runs leasegate's own git commands so that nothing a
// repository configures executes: a worker can write the repository's
// config and attributes, but leasegate's git runs outside the worker's
// gate. Every git leasegate starts goes through Command.
package gitrun
