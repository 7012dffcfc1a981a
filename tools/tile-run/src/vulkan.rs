//! A minimal Vulkan compute runner (through `ash`): one SPIR-V kernel, storage buffers bound at set
//! 0 in order, host-visible memory, one dispatch. Enough to execute what `convert-tile-to-spirv`
//! emits on any Vulkan 1.3 device, Debian's lavapipe (the CPU) included.

use ash::vk;
use std::ffi::CString;

/// A Vulkan device ready to run compute kernels.
pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    /// The device's name, for reports.
    pub name: String,
    /// Shared memory one workgroup may use.
    pub max_shared_bytes: u32,
}

fn check<T>(result: Result<T, vk::Result>, what: &str) -> Result<T, String> {
    result.map_err(|error| format!("vulkan: {what} failed: {error}"))
}

impl Vulkan {
    /// Opens the first Vulkan device with a compute queue.
    pub fn new() -> Result<Self, String> {
        let entry = unsafe { ash::Entry::load() }
            .map_err(|error| format!("no Vulkan loader ({error}); install libvulkan1 and a driver such as mesa-vulkan-drivers"))?;
        let name = CString::new("tile-run").expect("name");
        let application = vk::ApplicationInfo::default()
            .application_name(&name)
            .api_version(vk::API_VERSION_1_3);
        let instance = check(
            unsafe {
                entry.create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&application),
                    None,
                )
            },
            "creating an instance",
        )?;
        let devices = check(
            unsafe { instance.enumerate_physical_devices() },
            "listing devices",
        )?;
        let (physical, queue_family) = devices
            .iter()
            .find_map(|device| {
                let families =
                    unsafe { instance.get_physical_device_queue_family_properties(*device) };
                families
                    .iter()
                    .position(|family| family.queue_flags.contains(vk::QueueFlags::COMPUTE))
                    .map(|index| (*device, index as u32))
            })
            .ok_or("no Vulkan device with a compute queue")?;
        let properties = unsafe { instance.get_physical_device_properties(physical) };
        let device_name = properties
            .device_name_as_c_str()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Enable the 8/16-bit storage and arithmetic the shaders may use, where the device has them.
        let mut supported11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut supported12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut supported = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut supported11)
            .push_next(&mut supported12);
        unsafe { instance.get_physical_device_features2(physical, &mut supported) };
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_int16(supported.features.shader_int16 == vk::TRUE);
        let mut enable11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(supported11.storage_buffer16_bit_access == vk::TRUE);
        let mut enable12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(supported12.shader_float16 == vk::TRUE)
            .shader_int8(supported12.shader_int8 == vk::TRUE)
            .storage_buffer8_bit_access(supported12.storage_buffer8_bit_access == vk::TRUE);
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&core)
            .push_next(&mut enable11)
            .push_next(&mut enable12);
        let device = check(
            unsafe { instance.create_device(physical, &create, None) },
            "creating the device",
        )?;
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        Ok(Self {
            _entry: entry,
            instance,
            physical,
            device,
            queue,
            queue_family,
            name: device_name,
            max_shared_bytes: properties.limits.max_compute_shared_memory_size,
        })
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Result<u32, String> {
        let memory = unsafe {
            self.instance
                .get_physical_device_memory_properties(self.physical)
        };
        (0..memory.memory_type_count)
            .find(|index| {
                bits & (1 << index) != 0
                    && memory.memory_types[*index as usize]
                        .property_flags
                        .contains(flags)
            })
            .ok_or_else(|| "vulkan: no host-visible memory type".to_string())
    }

    /// Runs `entry` of `spirv` on `workgroups`, with `buffers` bound at set 0, bindings 0.. in order;
    /// the buffers are copied to the device before and back after.
    pub fn run(
        &self,
        spirv: &[u32],
        entry: &str,
        workgroups: [u32; 3],
        buffers: &mut [&mut [u8]],
    ) -> Result<(), String> {
        let d = &self.device;
        let mut owned_buffers = Vec::new();
        let mut memories = Vec::new();
        let result = (|| -> Result<(), String> {
            for contents in buffers.iter() {
                let size = contents.len().max(4) as u64;
                let buffer = check(
                    unsafe {
                        d.create_buffer(
                            &vk::BufferCreateInfo::default()
                                .size(size)
                                .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                            None,
                        )
                    },
                    "creating a buffer",
                )?;
                owned_buffers.push(buffer);
                let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
                let kind = self.memory_type(
                    requirements.memory_type_bits,
                    vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
                )?;
                let memory = check(
                    unsafe {
                        d.allocate_memory(
                            &vk::MemoryAllocateInfo::default()
                                .allocation_size(requirements.size)
                                .memory_type_index(kind),
                            None,
                        )
                    },
                    "allocating memory",
                )?;
                memories.push(memory);
                check(
                    unsafe { d.bind_buffer_memory(buffer, memory, 0) },
                    "binding memory",
                )?;
                let mapped = check(
                    unsafe { d.map_memory(memory, 0, size, vk::MemoryMapFlags::empty()) },
                    "mapping memory",
                )?;
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        contents.as_ptr(),
                        mapped as *mut u8,
                        contents.len(),
                    )
                };
                unsafe { d.unmap_memory(memory) };
            }
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..buffers.len() as u32)
                .map(|binding| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let layout = check(
                unsafe {
                    d.create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                        None,
                    )
                },
                "creating the set layout",
            )?;
            let layouts = [layout];
            let pipeline_layout = check(
                unsafe {
                    d.create_pipeline_layout(
                        &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                        None,
                    )
                },
                "creating the pipeline layout",
            )?;
            let shader = check(
                unsafe {
                    d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                },
                "creating the shader module",
            )?;
            let entry_name = CString::new(entry).map_err(|_| "entry name")?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(shader)
                .name(&entry_name);
            let pipelines = unsafe {
                d.create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(pipeline_layout)],
                    None,
                )
            }
            .map_err(|(_, error)| {
                format!("vulkan: creating the compute pipeline failed: {error}")
            })?;
            let sizes = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(buffers.len().max(1) as u32)];
            let pool = check(
                unsafe {
                    d.create_descriptor_pool(
                        &vk::DescriptorPoolCreateInfo::default()
                            .max_sets(1)
                            .pool_sizes(&sizes),
                        None,
                    )
                },
                "creating the descriptor pool",
            )?;
            let set = check(
                unsafe {
                    d.allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default()
                            .descriptor_pool(pool)
                            .set_layouts(&layouts),
                    )
                },
                "allocating the descriptor set",
            )?[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = owned_buffers
                .iter()
                .map(|buffer| {
                    [vk::DescriptorBufferInfo::default()
                        .buffer(*buffer)
                        .offset(0)
                        .range(vk::WHOLE_SIZE)]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = infos
                .iter()
                .enumerate()
                .map(|(binding, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(binding as u32)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            unsafe { d.update_descriptor_sets(&writes, &[]) };
            let command_pool = check(
                unsafe {
                    d.create_command_pool(
                        &vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family),
                        None,
                    )
                },
                "creating the command pool",
            )?;
            let command = check(
                unsafe {
                    d.allocate_command_buffers(
                        &vk::CommandBufferAllocateInfo::default()
                            .command_pool(command_pool)
                            .command_buffer_count(1),
                    )
                },
                "allocating the command buffer",
            )?[0];
            unsafe {
                check(
                    d.begin_command_buffer(command, &vk::CommandBufferBeginInfo::default()),
                    "recording",
                )?;
                d.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, pipelines[0]);
                d.cmd_bind_descriptor_sets(
                    command,
                    vk::PipelineBindPoint::COMPUTE,
                    pipeline_layout,
                    0,
                    &[set],
                    &[],
                );
                d.cmd_dispatch(command, workgroups[0], workgroups[1], workgroups[2]);
                check(d.end_command_buffer(command), "recording")?;
                let commands = [command];
                check(
                    d.queue_submit(
                        self.queue,
                        &[vk::SubmitInfo::default().command_buffers(&commands)],
                        vk::Fence::null(),
                    ),
                    "submitting",
                )?;
                check(d.queue_wait_idle(self.queue), "waiting for the kernel")?;
            }
            for (contents, memory) in buffers.iter_mut().zip(&memories) {
                let mapped = check(
                    unsafe {
                        d.map_memory(
                            *memory,
                            0,
                            contents.len().max(4) as u64,
                            vk::MemoryMapFlags::empty(),
                        )
                    },
                    "mapping memory",
                )?;
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        mapped as *const u8,
                        contents.as_mut_ptr(),
                        contents.len(),
                    )
                };
                unsafe { d.unmap_memory(*memory) };
            }
            unsafe {
                d.destroy_command_pool(command_pool, None);
                d.destroy_descriptor_pool(pool, None);
                d.destroy_pipeline(pipelines[0], None);
                d.destroy_shader_module(shader, None);
                d.destroy_pipeline_layout(pipeline_layout, None);
                d.destroy_descriptor_set_layout(layout, None);
            }
            Ok(())
        })();
        unsafe {
            for buffer in owned_buffers {
                d.destroy_buffer(buffer, None);
            }
            for memory in memories {
                d.free_memory(memory, None);
            }
        }
        result
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
