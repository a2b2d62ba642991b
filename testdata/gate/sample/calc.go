// Package calc is the gate sessions' sample project.
package calc

// Add returns a plus b.
func Add(a, b int) int { return a + b }

// Abs returns the absolute value of n.
func Abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
