// Package api tests Meridian's API as users meet it: every manifest under
// examples/ is accepted by a real API server and read back as written, and
// invalid objects are refused with a message that names the field at fault.
package api
