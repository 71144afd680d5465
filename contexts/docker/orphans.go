package docker

import (
	"context"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/moby/moby/client"
)

// Container is one of this context's containers as the daemon lists it.
type Container struct {
	ID     string
	Labels map[string]string
}

// Containers lists this context's containers (running or not) that
// carry every label of match.
func (c *Context) Containers(ctx context.Context, match map[string]string) ([]Container, error) {
	f := client.Filters{}.Add("label", Label)
	for k, v := range match {
		f = f.Add("label", k+"="+v)
	}
	res, err := c.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, c.apiErr("list containers", err)
	}
	out := make([]Container, 0, len(res.Items))
	for _, it := range res.Items {
		out = append(out, Container{ID: it.ID, Labels: it.Labels})
	}
	return out, nil
}

// Remove force-removes a container of this context (a gone one is fine).
func (c *Context) Remove(ctx context.Context, id string) error {
	_, err := c.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return c.apiErr("remove container", err)
	}
	return nil
}
