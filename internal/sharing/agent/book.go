package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// book is the provider's ledger behind one lock, rebuilt from the
// Reservations at first use (read from the API server, not a cache that
// may lag) and written back as Reservations after every change, under the
// same lock. So two reconcilers never carve the same capacity, and a
// restarted agent holds what the previous one promised.
type book struct {
	mu        sync.Mutex
	ledger    *sharing.Ledger
	client    client.Client
	reader    client.Reader
	namespace string
}

func newBook(c client.Client, reader client.Reader, namespace string) *book {
	return &book{client: c, reader: reader, namespace: namespace}
}

// do runs change on the ledger and writes the Reservations of the holds
// it returns the keys of: created or updated when the hold exists, deleted
// when it does not.
func (b *book) do(ctx context.Context, change func(l *sharing.Ledger) ([]sharing.HoldKey, error)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ledger == nil {
		var list sharingv1alpha1.ReservationList
		if err := b.reader.List(ctx, &list, client.InNamespace(b.namespace)); err != nil {
			return fmt.Errorf("failed to list reservations to rebuild the ledger: %w", err)
		}
		holds := make([]sharing.Hold, 0, len(list.Items))
		for _, r := range list.Items {
			holds = append(holds, sharing.HoldFromReservation(r.Spec))
		}
		b.ledger = sharing.NewLedger(holds...)
	}
	keys, err := change(b.ledger)
	for _, k := range keys {
		if perr := b.persist(ctx, k); perr != nil {
			// The ledger is ahead of the API server: rebuild it from the
			// Reservations next time rather than trust either half.
			b.ledger = nil
			return perr
		}
	}
	return err
}

// reservationName is the Reservation that stores the hold of key.
func reservationName(k sharing.HoldKey) string {
	return strings.ToLower(fmt.Sprintf("%s.%s.%s", k.Consumer, k.Source.Kind, k.Source.Name))
}

func (b *book) persist(ctx context.Context, k sharing.HoldKey) error {
	r := &sharingv1alpha1.Reservation{}
	r.Name, r.Namespace = reservationName(k), b.namespace
	h, ok := b.ledger.Get(k)
	if !ok {
		if err := b.client.Delete(ctx, r); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to delete reservation %q: %w", r.Name, err)
		}
		return nil
	}
	err := b.reader.Get(ctx, client.ObjectKeyFromObject(r), r)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to read reservation %q: %w", r.Name, err)
	}
	exists := err == nil
	r.Spec = h.Reservation()
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	r.Labels[sharingv1alpha1.LabelConsumer] = string(k.Consumer)
	if exists {
		err = b.client.Update(ctx, r)
	} else {
		err = b.client.Create(ctx, r)
	}
	if err != nil {
		return fmt.Errorf("failed to write reservation %q: %w", r.Name, err)
	}
	total := corev1.ResourceList{}
	for _, s := range h.Slices {
		for n, q := range s.Resources {
			v := total[n]
			v.Add(q)
			total[n] = v
		}
	}
	r.Status.Total = total
	r.Status.ObservedGeneration = r.Generation
	sharing.SetReady(r)
	if err := b.client.Status().Update(ctx, r); err != nil {
		return fmt.Errorf("failed to write the status of reservation %q: %w", r.Name, err)
	}
	return nil
}
