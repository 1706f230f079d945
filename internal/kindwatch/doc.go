// Package kindwatch lets a controller watch kinds it learns of while it
// runs (the kinds propagation policies select): the metadata of each kind's
// objects is watched once, from the manager's cache, and every event is
// mapped to requests by the controller's own function.
package kindwatch
