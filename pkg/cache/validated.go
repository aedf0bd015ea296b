package cache

import (
	"encoding/json"
)

// RememberValidated records that the build check named key passed and
// rendered images (a build.Memo). Records are sealed like the others.
func (c *Cache) RememberValidated(key string, images []string) error {
	if images == nil {
		images = []string{}
	}
	data, err := json.Marshal(images)
	if err != nil {
		return err
	}
	return c.writeSealed("validated", key, string(data))
}

// Validated returns the images of a build check that passed, when its
// record is sealed with this cache's key and the cache is private.
func (c *Cache) Validated(key string) ([]string, bool) {
	if !c.private {
		return nil, false
	}
	payload, ok := c.readSealed("validated", key)
	if !ok {
		return nil, false
	}
	var images []string
	if err := json.Unmarshal([]byte(payload), &images); err != nil {
		return nil, false
	}
	return images, true
}
